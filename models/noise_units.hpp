#pragma once
// Noise and sensitivity units of the papers the tool compares (docs/math.md
// section 1.4). The solver works in C21 units: one step of noisy GD adds sqrt(2 eta) N(0, sigma^2 I)
// (Chourasia, Ye & Shokri 2021, Algorithm 1). Every conversion is a named function so that no
// factor of 2 hides in an expression.
#include <cmath>

namespace rdpdyn::noise_units {

/// Per-step noise standard deviation of C21 Algorithm 1: sqrt(2 eta) sigma.
inline double c21_step_noise_std(double sigma_c21, double eta) { return std::sqrt(2.0 * eta) * sigma_c21; }

/// Per-step noise standard deviation of Altschuler & Talwar 2022 (noise eta Z, Z ~ N(0, sigma^2 I);
/// their footnote 3, arXiv:2205.13710): eta sigma.
inline double at_step_noise_std(double sigma_at, double eta) { return eta * sigma_at; }

/// C21 sigma -> A&T sigma: equal per-step noise, eta sigma_AT = sqrt(2 eta) sigma, so
/// sigma_AT = sigma sqrt(2 / eta) (docs/math.md section 1.4; A&T's
/// footnote 3 says C21's variance is eta sigma^2, it is 2 eta sigma^2).
inline double at_sigma_from_c21(double sigma_c21, double eta) { return sigma_c21 * std::sqrt(2.0 / eta); }

/// C21 Langevin diffusion dTheta = -grad L ds + sqrt(2 sigma^2) dW_s -> the diffusion of Ganesh,
/// Thakurta & Upadhyay 2022 (arXiv:2204.01585, eq. (1)), dtheta = -beta grad L dt + sqrt(2) dW_t, at a
/// constant inverse temperature beta: the same laws with beta = 1/sigma^2 and time t = sigma^2 s
/// (s = beta t; docs/math.md section 1.4). Their Delta bounds the gradient difference of the
/// averaged loss: Delta = S_g / n.
inline double gtu_beta_from_c21_sigma(double sigma_c21) { return 1.0 / (sigma_c21 * sigma_c21); }
inline double gtu_time_from_c21(double time_c21, double sigma_c21) { return sigma_c21 * sigma_c21 * time_c21; }
inline double gtu_delta_from_c21(double sensitivity_g, double n) { return sensitivity_g / n; }
/// GTU's strong convexity m of the loss L(theta; D) (their Lemma I.2) is C21's lambda: both drifts
/// are gradients of the same averaged loss, the time change does not touch L. So m = lambda, and
/// their start N(0, I/(beta m)) is N(0, (sigma^2/lambda) I).
inline double gtu_m_from_c21_lambda(double lambda) { return lambda; }

/// C21 sigma -> the sigma_DP of Liang et al. 2025 (arXiv:2502.17772; HauLiang/DPSGD-DC, commit
/// ae9946f, trainer.py): Gaussian noise of std sigma_DP added to the averaged clipped gradient, so
/// the per-step noise is eta sigma_DP = sqrt(2 eta) sigma: sigma_DP = sigma sqrt(2 / eta) (A&T's
/// convention). Their clip norm C is S_g / 2 (replace-one), their L-smoothness is C21's beta.
inline double liang_sigma_dp_from_c21(double sigma_c21, double eta) { return sigma_c21 * std::sqrt(2.0 / eta); }
/// C21 sigma -> the sigma of Kong & Ribero 2024 as Liang et al.'s plotting script transcribes it
/// (per-step noise eta sigma): the same conversion.
inline double kong_ribero_sigma_from_c21(double sigma_c21, double eta) { return sigma_c21 * std::sqrt(2.0 / eta); }

/// A&T sigma -> C21 sigma, the inverse of at_sigma_from_c21.
inline double c21_sigma_from_at(double sigma_at, double eta) { return sigma_at * std::sqrt(eta / 2.0); }

/// l2-sensitivity of one noisy-GD update theta -> theta - (eta/b) sum_{i in B} grad l(theta; x_i)
/// when the differing record is in the batch: eta S_g / b (b = n for full batch; Ye & Shokri 2022
/// Lemma 3.2 case i0 in B; A&T's shift 2 eta L / b with 2L <-> S_g, docs/math.md section 1.2).
inline double step_sensitivity(double sensitivity_g, double eta, double batch) { return eta * sensitivity_g / batch; }

/// Effective noise multiplier of one step: noise std / update sensitivity,
/// z = sqrt(2 eta) sigma / (eta S_g / b) = b sigma sqrt(2/eta) / S_g = b sigma_AT / S_g.
/// This is the sigma argument of A&T's S_alpha(b/n, b sigma / (2L)) (A&T (3.5), (B.2)).
/// In the first form (the values every output has carried); where it overflows (inf / inf at
/// eta = 1e308) in the second, which overflows for no finite eta.
inline double effective_noise_multiplier(double sigma_c21, double eta, double sensitivity_g, double batch) {
  const double z = c21_step_noise_std(sigma_c21, eta) / step_sensitivity(sensitivity_g, eta, batch);
  return std::isnan(z) ? batch * at_sigma_from_c21(sigma_c21, eta) / sensitivity_g : z;
}

/// Gaussian-DP parameter of one step whose update the differing record moves by at most
/// eta S_g / b: the shift over the noise std (Dong, Roth & Su 2022, arXiv:1905.02383, Thm 2.7, the
/// Gaussian mechanism), mu_1 = (eta S_g / b) / (sqrt(2 eta) sigma) = sqrt(eta/2) S_g / (b sigma),
/// i.e. 1 / effective_noise_multiplier. In A&T / Bok, Su & Altschuler units (noise eta sigma_AT,
/// S_g = 2L) this is 2 L / (b sigma_AT) (docs/math.md section 1.4).
inline double one_step_gdp_mu(double sigma_c21, double eta, double sensitivity_g, double batch) {
  return std::sqrt(eta / 2.0) * sensitivity_g / (batch * sigma_c21);
}

/// DP-SGD noise multiplier m (noise std m C on the clipped gradient sum, clip norm C = S_g / 2)
/// -> C21 sigma: sigma = sqrt(eta/2) m S_g / (2 b) (docs/math.md section 1.4; Ye & Shokri 2022 App. F.1
/// [FIX] sqrt(n/2) -> sqrt(eta/2)). Under replace adjacency m = 2 z (z the effective multiplier):
/// the sensitivity of a clipped sum is 2C.
inline double c21_sigma_from_dpsgd_multiplier(double multiplier, double eta, double sensitivity_g, double batch) {
  return std::sqrt(eta / 2.0) * multiplier * sensitivity_g / (2.0 * batch);
}

/// C21 sigma -> DP-SGD noise multiplier, the inverse of c21_sigma_from_dpsgd_multiplier.
inline double dpsgd_multiplier_from_c21_sigma(double sigma_c21, double eta, double sensitivity_g, double batch) {
  return sigma_c21 * 2.0 * batch / (std::sqrt(eta / 2.0) * sensitivity_g);
}

/// l2-sensitivity of a sum of per-record gradients clipped at norm C, in units of C: 2 under
/// replace-one adjacency (one clipped gradient exchanged for another), 1 under add/remove-one (one
/// clipped gradient more or less; Abadi et al. 2016, arXiv:1607.00133, Algorithm 1 with the
/// adjacency of their Sec. 2). So S_g = 2C or S_g = C, and the effective multiplier of one update
/// is z = m / this (docs/math.md section 1.4).
inline double clipped_sum_sensitivity_in_clips(bool add_remove) { return add_remove ? 1.0 : 2.0; }

/// DP-SGD noise multiplier m -> effective noise multiplier z = noise std / update sensitivity:
/// z = m under add/remove adjacency (opacus' noise_multiplier is the SGM's sigma directly;
/// Mironov, Talwar & Zhang 2019, arXiv:1908.10530, Sec. 3), z = m / 2 under replace.
inline double effective_from_dpsgd_multiplier(double multiplier, bool add_remove) {
  return multiplier / clipped_sum_sensitivity_in_clips(add_remove);
}

/// DP-SGD noise multiplier m under add/remove adjacency (noise std m C on the clipped sum, clip
/// norm C = S_g) -> C21 sigma: sqrt(2 eta) sigma = eta m C / b, so sigma = sqrt(eta/2) m S_g / b.
/// Then effective_noise_multiplier(sigma, eta, S_g, b) = m.
inline double c21_sigma_from_dpsgd_multiplier_add_remove(double multiplier, double eta, double sensitivity_g,
                                                         double batch) {
  return std::sqrt(eta / 2.0) * multiplier * sensitivity_g / batch;
}

/// C21 sigma -> DP-SGD noise multiplier under add/remove adjacency, the inverse of
/// c21_sigma_from_dpsgd_multiplier_add_remove.
inline double dpsgd_multiplier_add_remove_from_c21_sigma(double sigma_c21, double eta, double sensitivity_g,
                                                         double batch) {
  return sigma_c21 * batch / (std::sqrt(eta / 2.0) * sensitivity_g);
}

}  // namespace rdpdyn::noise_units
