/*
 * cmd_export: `pqprof export`, the symbolized exports of a trace.  Kept
 * apart from `pqprof trace` (raw inspection) so both can grow without
 * touching each other; `pqprof trace export ...` may forward here.
 */
#ifndef PQ_CMD_EXPORT_H
#define PQ_CMD_EXPORT_H

int cmd_export(int argc, char **argv);

#endif
