/* Jansson values from the program's own data, and how every JSON file is
 * dumped. Private to sim/. */
#ifndef OFDMSIM_JSON_VALUE_H
#define OFDMSIM_JSON_VALUE_H

#include <jansson.h>

/* Two-space indent, keys in the order they were set, and 17 significant
 * digits so that every real reads back as the same double. */
#define SIM_JSON_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))

/* A JSON string of any bytes: Jansson takes only valid UTF-8, so each byte
 * that is not part of a valid sequence (a Latin-1 file name, say) becomes
 * U+FFFD. NULL only when out of memory. */
json_t *sim_json_string(const char *s);

/* A real, or null for NaN and infinities, which JSON cannot write. */
json_t *sim_json_real(double v);

#endif
