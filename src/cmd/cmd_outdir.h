/*
 * cmd_outdir: the output directory of a command.  Every command writes
 * where its option says, else to its one documented default (./records/
 * for kat, bench, mem and sizes; reports/<system>/<scheme>/ for run); a
 * directory it has to create is named on stderr, so nothing appears in the
 * working directory unannounced.
 */
#ifndef PQ_CMD_OUTDIR_H
#define PQ_CMD_OUTDIR_H

#include "core/pq_error.h"

/*
 * Create dir (and its parents) if needed; when it did not exist, print
 * "pqprof CMD: created DIR/ for WHAT (OPTION DIR chooses another place)".
 */
int cmd_out_dir(const char *cmd, const char *dir, const char *what, const char *option, pq_error *err);

#endif
