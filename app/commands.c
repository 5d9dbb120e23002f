/* The table of subcommands. */
#include "app/commands.h"

#include <string.h>

#include "app/bench/bench.h"
#include "app/compare.h"
#include "app/merge.h"
#include "app/plot.h"

static const app_command commands[] = {
    {"bench", "[...]", "inversion / pipeline throughput on this machine (ofdmsim bench --help)",
     bench_main},
    {"compare", "A.csv B.csv [...]", "do two result files agree, point by point? (ofdmsim compare --help)",
     compare_main},
    {"merge", "A.csv B.csv... -o OUT.csv", "add up results of disjoint parts (ofdmsim merge --help)",
     merge_main},
    {"plot", "RESULTS.csv... -o ber.png", "BER against SNR drawn by gnuplot (ofdmsim plot --help)",
     plot_main},
};
#define N_COMMANDS (sizeof commands / sizeof *commands)

const app_command *app_command_find(const char *name) {
  for (size_t i = 0; i < N_COMMANDS; i++)
    if (!strcmp(commands[i].name, name)) return &commands[i];
  return NULL;
}

void app_commands_print_usage(FILE *f) {
  for (size_t i = 0; i < N_COMMANDS; i++)
    fprintf(f, "  ofdmsim %s %s\n", commands[i].name, commands[i].synopsis);
}

void app_commands_print_summaries(FILE *f) {
  for (size_t i = 0; i < N_COMMANDS; i++) {
    char head[64];
    snprintf(head, sizeof head, "%s %s", commands[i].name, commands[i].synopsis);
    fprintf(f, "  %-14s %s\n", head, commands[i].summary);
  }
}
