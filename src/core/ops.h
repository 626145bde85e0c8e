/*
 * ops: the operation vocabulary.  Every record, job, option and report
 * names operations with these words, in this order (the report order):
 * keygen, sign, verify for signatures; keygen, enc, dec for KEMs.
 */
#ifndef PQ_OPS_H
#define PQ_OPS_H

enum pq_op { PQ_OP_KEYGEN = 0, PQ_OP_SIGN, PQ_OP_VERIFY, PQ_OP_ENC, PQ_OP_DEC, PQ_OP_COUNT };

/* "?" for a value outside the enum. */
const char *pq_op_name(enum pq_op op);
/* -1 when the name is not an operation (NULL included). */
int pq_op_parse(const char *name);
/* Operations valid for an instance kind (enum pqprof_kind), in report
 * order; returns the count. */
int pq_ops_for_kind(int kind, enum pq_op ops[PQ_OP_COUNT]);

#endif
