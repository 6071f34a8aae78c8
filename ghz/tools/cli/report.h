/* ghz/tools/cli/report.h: the error and speed report of stat (and roundtrip -s). */
#ifndef GHZ_TOOLS_CLI_REPORT_H
#define GHZ_TOOLS_CLI_REPORT_H

#include <stdio.h>

#include "metrics.h"
#include "pipeline.h"

/* Prints the report of a finished pipeline (with metrics) to f. */
void cli_report_print(FILE* f, const cli_pipeline* pl, const cli_metrics* m);

/* 0 when every value met the guarantee (bound respected, NaN/Inf/fill exact), else
 * CLI_ERR_RUNTIME after saying which guarantee failed. */
int cli_report_verdict(const cli_pipeline* pl, const cli_metrics* m);

#endif
