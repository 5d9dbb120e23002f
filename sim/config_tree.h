/* Kept for app/cli.c, which includes it for cfg_suggest: the helpers that
 * lived here are now in sim/config_{read,source,override,path,where,format,
 * suggest}.h. Remove once app/cli.c includes sim/config_suggest.h. */
#ifndef OFDMSIM_CONFIG_TREE_H
#define OFDMSIM_CONFIG_TREE_H

#include "sim/config_suggest.h"

#endif
