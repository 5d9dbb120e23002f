/* The fixed columns of a results CSV, in file order: the one table that the
 * run's writer prints as the header (results/report.c) and that the merge's
 * writer and every reader (merge, compare, plot) name columns from, so the
 * file and its readers cannot drift apart. After these come one column per
 * config key (config/config_columns.h). README.md's "Result files" describes
 * each. No name here may be a config key's path: pandas and every reader
 * that finds a column by name would see the second copy renamed or not at
 * all (the modulation and the equalizer, fixed columns once, are now only
 * the config's `modulation` and `equalizer` columns, with the same text). */
#ifndef OFDMSIM_CSV_COLUMNS_H
#define OFDMSIM_CSV_COLUMNS_H

#include <stdio.h>

#define RESULT_COLUMNS(X)                                                                             \
  X(POINT, "point") X(TX, "tx") X(RX, "rx") X(CHANNEL, "channel") X(DOMAIN, "domain") X(SNR_KIND, "snr_kind") X(SNR_DB, "snr_db") X(N0, "n0")     \
  X(BITS, "bits") X(BIT_ERRORS, "bit_errors") X(BER, "ber") X(CI95_LOW, "ci95_low")                    \
  X(CI95_HIGH, "ci95_high") X(THEORY_BER, "theory_ber") X(THEORY, "theory")                             \
  X(STREAM_BIT_ERRORS, "stream_bit_errors") X(FRAMES, "frames") X(STOP, "stop")                        \
  X(INVERSIONS, "inversions") X(INV_PER_S, "inv_per_s") X(MBIT_PER_S, "mbit_per_s")                    \
  X(SECONDS, "seconds") X(BACKEND, "backend") X(LABEL, "label") X(FALLBACKS, "fallbacks")              \
  X(STREAM_KEY, "stream_key") X(FRAME_ERRORS_SQ, "frame_errors_sq") X(UNITS, "units")                  \
  X(POINT_KEY, "point_key") X(GMI, "gmi") X(GMI_CI95_LOW, "gmi_ci95_low")                              \
  X(GMI_CI95_HIGH, "gmi_ci95_high") X(STREAM_GMI, "stream_gmi") X(STREAM_GMI_LOSS, "stream_gmi_loss") \
  X(FRAME_GMI_LOSS_SQ, "frame_gmi_loss_sq")                                                            \
  X(BLOCKS, "blocks") X(BLOCK_ERRORS, "block_errors") X(BLER, "bler") X(BLER_CI95_LOW, "bler_ci95_low")  \
  X(BLER_CI95_HIGH, "bler_ci95_high") X(CODE_BLOCKS, "code_blocks") X(CB_ERRORS, "cb_errors")          \
  X(CBLER, "cbler") X(INFO_BITS, "info_bits") X(INFO_BIT_ERRORS, "info_bit_errors")                    \
  X(CODED_BER, "coded_ber") X(ITERATIONS, "iterations") X(MEAN_ITERATIONS, "mean_iterations")          \
  X(THROUGHPUT, "throughput") X(THROUGHPUT_CI95_LOW, "throughput_ci95_low")                             \
  X(THROUGHPUT_CI95_HIGH, "throughput_ci95_high") X(THROUGHPUT_BPS, "throughput_bps")                    \
  X(FRAME_CB_ERRORS_SQ, "frame_cb_errors_sq") X(FRAME_INFO_ERRORS_SQ, "frame_info_errors_sq")          \
  X(GMI_S, "gmi_s") X(GMI_S1, "gmi_s1") X(GMI_LOSS_S, "gmi_loss_s") X(FRAME_GMI_LOSS_S_SQ, "frame_gmi_loss_s_sq") \
  X(HARQ_ERRORS, "harq_errors") X(RESIDUAL_BLER, "residual_bler")                                      \
  X(RESIDUAL_BLER_CI95_LOW, "residual_bler_ci95_low") X(RESIDUAL_BLER_CI95_HIGH, "residual_bler_ci95_high") \
  X(TRANSMISSIONS, "transmissions") X(MEAN_TRANSMISSIONS, "mean_transmissions")                        \
  X(MEAN_TRANSMISSIONS_CI95_LOW, "mean_transmissions_ci95_low")                                        \
  X(MEAN_TRANSMISSIONS_CI95_HIGH, "mean_transmissions_ci95_high") X(HARQ_THROUGHPUT, "harq_throughput") \
  X(HARQ_THROUGHPUT_CI95_LOW, "harq_throughput_ci95_low")                                              \
  X(HARQ_THROUGHPUT_CI95_HIGH, "harq_throughput_ci95_high") X(HARQ_THROUGHPUT_BPS, "harq_throughput_bps") \
  X(FRAME_TRANSMISSIONS_SQ, "frame_transmissions_sq") X(DELIVERED_TRANSMISSIONS, "delivered_transmissions") \
  X(DROP_BLOCK_ERRORS_SQ, "drop_block_errors_sq") X(DROP_HARQ_ERRORS_SQ, "drop_harq_errors_sq")         \
  X(DROP_DELIVERED_SQ, "drop_delivered_sq")

typedef enum result_column {
#define RESULT_COLUMN_ID(id, name) COL_##id,
  RESULT_COLUMNS(RESULT_COLUMN_ID)
#undef RESULT_COLUMN_ID
  COL_COUNT
} result_column;

/* The column's name in the header. */
const char *result_column_name(result_column c);

/* The fixed part of the header: "point,tx,...,frame_gmi_loss_s_sq" (no newline). */
void result_columns_head(FILE *f);

/* A real-valued cell: v to `digits` significant digits (%.*g), with ".0"
 * appended where that prints an integer ("10" -> "10.0", "0" -> "0.0"), so
 * that a column of reals never reads back as integers in pandas or R (an
 * SNR list of whole numbers made snr_db int64; a column of zero BERs, int).
 * Columns of counts stay integers. */
void csv_real_text(char *buf, size_t n, int digits, double v);
void csv_real(FILE *f, int digits, double v);

#endif
