/* The CDL-A..E cluster tables of TR 38.901 Section 7.7.1 (Tables 7.7.1-1 ..
 * 7.7.1-5), generated into channel/cdl_tables.c by scripts/gen-cdl-tables.py.
 * Delays are normalised (multiply by the delay spread); for CDL-D/E row 0 is
 * the specular LOS path and row 1 the Laplacian cluster at the same delay. */
#ifndef OFDMSIM_CDL_TABLES_H
#define OFDMSIM_CDL_TABLES_H

#ifdef __cplusplus
extern "C" {
#endif

#define CDL_MODELS 5
#define CDL_MAX_CLUSTERS 24

typedef struct cdl_table {
  char name;    /* 'A' .. 'E' */
  int clusters; /* rows in the table, LOS row included */
  int los;      /* 1: row 0 is the LOS path (CDL-D, CDL-E) */
  double c_asd, c_asa, c_zsd, c_zsa; /* per-cluster rms angle spreads, degrees */
  double xpr_db;                     /* cross-polarisation power ratio */
  double delay[CDL_MAX_CLUSTERS];    /* normalised delays */
  double power_db[CDL_MAX_CLUSTERS];
  double aod[CDL_MAX_CLUSTERS], aoa[CDL_MAX_CLUSTERS]; /* degrees */
  double zod[CDL_MAX_CLUSTERS], zoa[CDL_MAX_CLUSTERS];
} cdl_table;

extern const cdl_table cdl_tables[CDL_MODELS];

/* The table of CDL-`name` ('A'..'E', either case); NULL for any other. */
const cdl_table *cdl_table_find(char name);

/* The 20 ray offset angles of Table 7.5-3 for unit rms spread: ray m of a
 * cluster with spread c lies at c * cdl_ray_offset[m] degrees from its centre. */
extern const double cdl_ray_offset[20];

#ifdef __cplusplus
}
#endif
#endif
