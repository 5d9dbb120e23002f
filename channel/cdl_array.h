/* Antenna panels of TR 38.901 Section 7.3: a uniform planar array of rows x
 * columns elements (a ULA when either is 1) in the panel's y-z plane, facing
 * +x, element spacing in wavelengths, single or dual polarised, turned by a
 * bearing (about z) and a downtilt (about y) as in 7.1.3. */
#ifndef OFDMSIM_CDL_ARRAY_H
#define OFDMSIM_CDL_ARRAY_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { CDL_POL_SINGLE = 0, CDL_POL_DUAL = 1 } cdl_polarisation;

typedef struct cdl_array {
  int rows, columns;
  double spacing_v, spacing_h; /* wavelengths, between rows / between columns */
  cdl_polarisation pol;        /* dual: two co-located elements per position */
  double bearing_deg, downtilt_deg;
} cdl_array;

/* The number of elements: rows * columns, twice that when dual polarised.
 * Element k of a dual-polarised panel is polarisation k % 2 at position k / 2. */
int cdl_array_elements(const cdl_array *a);

/* Element k's position in global coordinates, wavelengths: the panel's local
 * (0, column * spacing_h, row * spacing_v) rotated by R = Rz(bearing) Ry(downtilt). */
void cdl_array_position(const cdl_array *a, int k, double pos[3]);

/* The array response towards zenith theta, azimuth phi (degrees, global):
 * exp(j 2 pi rhat . pos_k) for every element k into re[k], im[k], with rhat
 * the unit vector (sin theta cos phi, sin theta sin phi, cos theta) (7.5-22). */
void cdl_array_response(const cdl_array *a, double theta_deg, double phi_deg, double *re, double *im);

#ifdef __cplusplus
}
#endif
#endif
