/* What a CDL table says a channel's statistics are, for the tests that hold
 * the generated channel to them (test_cdl_channel, test_drops). Header only:
 * those tests link the channel library, the test support library does not. */
#ifndef OFDMSIM_TEST_CDL_REF_H
#define OFDMSIM_TEST_CDL_REF_H

#include <complex.h>
#include <math.h>

#include "channel/cdl_channel.h"

/* Cluster n's share of the table's total power (linear). */
static inline double cdl_ref_power(const cdl_table *t, int n) {
  double total = 0;
  for (int i = 0; i < t->clusters; i++) total += pow(10.0, t->power_db[i] / 10.0);
  return pow(10.0, t->power_db[n] / 10.0) / total;
}

/* The NLOS clusters' normalised time autocorrelation at lag tau for a UE
 * moving at Doppler nu (f_d tau = nu tau): each cluster's 20 x 20 arrival
 * rays (azimuth and zenith offsets, zenith folded into [0, 180]) at their
 * power share, over the NLOS clusters' total. */
static inline double complex cdl_ref_nlos_autocorrelation(const cdl_table *t, double nu, double tau) {
  const double pi = 3.14159265358979323846;
  double complex want = 0;
  double total = 0;
  for (int n = 1; n < t->clusters; n++) {
    for (int m = 0; m < 20; m++)
      for (int q = 0; q < 20; q++) {
        const double aoa = (t->aoa[n] + t->c_asa * cdl_ray_offset[m]) * pi / 180;
        double zoa = t->zoa[n] + t->c_zsa * cdl_ray_offset[q];
        if (zoa > 180) zoa = 360 - zoa;
        want += cdl_ref_power(t, n) / 400 * cexp(-2 * I * pi * nu * tau * sin(zoa * pi / 180) * cos(aoa));
      }
    total += cdl_ref_power(t, n);
  }
  return want / total;
}

#endif
