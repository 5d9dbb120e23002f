/* The antenna element of TR 38.901 Table 7.3-1 (the 3GPP sector element:
 * 65 degree half-power beamwidths, 30 dB front-to-back, 8 dBi gain) beside the
 * isotropic one, as the power gain in dBi towards a direction in the
 * element's own coordinates (zenith theta, azimuth phi, degrees). */
#ifndef OFDMSIM_CDL_ELEMENT_H
#define OFDMSIM_CDL_ELEMENT_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { CDL_ELEMENT_ISOTROPIC = 0, CDL_ELEMENT_38901 = 1 } cdl_element;

/* Power gain in dBi: 0 for the isotropic element; for the 38.901 element
 * G_max + A(theta, phi) with A = -min(-(A_V + A_H), 30), A_V = -min(12((theta -
 * 90)/65)^2, 30), A_H = -min(12(phi/65)^2, 30), phi wrapped to [-180, 180). */
double cdl_element_gain_db(cdl_element e, double theta_deg, double phi_deg);

#ifdef __cplusplus
}
#endif
#endif
