/* Element positions and the plane-wave response of a 38.901 panel (cdl_array.h). */
#include <math.h>

#include "channel/cdl_array.h"

#define DEG (3.14159265358979323846 / 180.0)

int cdl_array_elements(const cdl_array *a) {
  return a->rows * a->columns * (a->pol == CDL_POL_DUAL ? 2 : 1);
}

void cdl_array_position(const cdl_array *a, int k, double pos[3]) {
  int site = a->pol == CDL_POL_DUAL ? k / 2 : k;
  double y = (site % a->columns) * a->spacing_h, z = (site / a->columns) * a->spacing_v;
  /* Ry(downtilt) turns the panel's local (0, y, z) to (z sin b, y, z cos b);
   * Rz(bearing) then turns it about the vertical (7.1-4 with slant 0). */
  double ca = cos(a->bearing_deg * DEG), sa = sin(a->bearing_deg * DEG);
  double cb = cos(a->downtilt_deg * DEG), sb = sin(a->downtilt_deg * DEG);
  double x1 = z * sb, z1 = z * cb;
  pos[0] = ca * x1 - sa * y;
  pos[1] = sa * x1 + ca * y;
  pos[2] = z1;
}

void cdl_array_response(const cdl_array *a, double theta_deg, double phi_deg, double *re, double *im) {
  double st = sin(theta_deg * DEG);
  double r[3] = {st * cos(phi_deg * DEG), st * sin(phi_deg * DEG), cos(theta_deg * DEG)};
  int n = cdl_array_elements(a);
  for (int k = 0; k < n; k++) {
    double p[3];
    cdl_array_position(a, k, p);
    double ph = 2.0 * 3.14159265358979323846 * (r[0] * p[0] + r[1] * p[1] + r[2] * p[2]);
    re[k] = cos(ph);
    im[k] = sin(ph);
  }
}
