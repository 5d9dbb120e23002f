/* The panel's response against closed-form steering vectors: a horizontal
 * ULA's exp(j 2 pi d n sin(theta) sin(phi - bearing)), a vertical one's
 * exp(j 2 pi d m cos(theta)), and a downtilted vertical one's, worked out for
 * the tilted axis by hand. */
#include <math.h>

#include "channel/cdl_array.h"
#include "testutil.h"

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)

static void expect(const cdl_array *a, double th, double ph, const double *phase, const char *what) {
  double re[64], im[64];
  cdl_array_response(a, th, ph, re, im);
  for (int k = 0; k < cdl_array_elements(a); k++) {
    double err = hypot(re[k] - cos(phase[k]), im[k] - sin(phase[k]));
    CHECK(err < 1e-12, "%s at (%g, %g) element %d: off by %g", what, th, ph, k, err);
  }
}

int main(void) {
  static const double angles[][2] = {{90, 0}, {90, 30}, {60, -75}, {120, 150}, {10, 45}};
  for (unsigned i = 0; i < sizeof angles / sizeof angles[0]; i++) {
    double th = angles[i][0], ph = angles[i][1], phase[64];
    cdl_array ula = {1, 4, 0.5, 0.5, CDL_POL_SINGLE, 0, 0};
    for (int n = 0; n < 4; n++) phase[n] = 2 * PI * 0.5 * n * sin(th * DEG) * sin(ph * DEG);
    expect(&ula, th, ph, phase, "horizontal ULA");

    cdl_array turned = {1, 4, 0.5, 0.7, CDL_POL_SINGLE, 30, 0};
    for (int n = 0; n < 4; n++) phase[n] = 2 * PI * 0.7 * n * sin(th * DEG) * sin((ph - 30) * DEG);
    expect(&turned, th, ph, phase, "ULA at bearing 30");

    cdl_array vert = {4, 1, 0.8, 0.5, CDL_POL_SINGLE, 0, 0};
    for (int m = 0; m < 4; m++) phase[m] = 2 * PI * 0.8 * m * cos(th * DEG);
    expect(&vert, th, ph, phase, "vertical ULA");

    /* Downtilt 10 degrees leans the vertical axis to (sin 10, 0, cos 10). */
    cdl_array tilt = {4, 1, 0.5, 0.5, CDL_POL_SINGLE, 0, 10};
    for (int m = 0; m < 4; m++)
      phase[m] = 2 * PI * 0.5 * m * (sin(th * DEG) * cos(ph * DEG) * sin(10 * DEG) + cos(th * DEG) * cos(10 * DEG));
    expect(&tilt, th, ph, phase, "downtilted vertical ULA");

    /* A dual-polarised 2x2 panel: 8 elements, both polarisations of a site in phase. */
    cdl_array upa = {2, 2, 0.5, 0.5, CDL_POL_DUAL, 0, 0};
    CHECK(cdl_array_elements(&upa) == 8, "2x2 dual-polarised panel has %d elements", cdl_array_elements(&upa));
    for (int k = 0; k < 8; k++) {
      int site = k / 2;
      phase[k] = PI * ((site % 2) * sin(th * DEG) * sin(ph * DEG) + (site / 2) * cos(th * DEG));
    }
    expect(&upa, th, ph, phase, "dual-polarised 2x2 panel");
  }
  return test_finish("test_cdl_array");
}
