#pragma once
// Closed-form Rényi bounds and exact divergences of Chourasia, Ye & Shokri 2021 ("C21",
// NeurIPS 2021, arXiv:2102.05855), in C21 conventions: noisy GD
// theta <- Pi(theta - (eta/n) g(theta; D) + sqrt(2 eta) N(0, sigma^2 I)), S_g the l2-sensitivity of
// the total gradient g, n the dataset size, K steps. All return R_alpha in nats.
namespace rdpdyn::closed_forms {

/// C21 Thm 1 (gamma = 1, no LSI): R <= alpha S_v^2 T / (4 sigma^2), T the diffusion time.
double thm1(double alpha, double sensitivity_v, double sigma, double time);

/// C21 Thm 2 (constant LSI c, any gamma in (0,1)):
/// R <= alpha S_g^2 / (8 gamma (1-gamma) c sigma^4 n^2) (1 - exp(-2 (1-gamma) sigma^2 c eta K)).
/// The stated theorem is gamma = 1/2. `time` = eta K (for Langevin, the diffusion time).
double thm2(double alpha, double sensitivity_g, double n, double sigma, double lsi_c, double gamma, double time);

/// C21 Cor 1 (lambda-strongly convex, beta-smooth, eta < 1/beta, Gaussian initialisation):
/// R <= alpha S_g^2 / (lambda sigma^2 n^2) (1 - exp(-lambda eta K / 2)).
double cor1(double alpha, double sensitivity_g, double n, double sigma, double lambda, double eta, double steps);

/// C21 Cor 2 (squared loss |theta - x|^2/2 on R^d, theta_0 = 0):
/// R <= alpha S_g^2 / ((2 - eta) sigma^2 n^2) (1 - exp(-(2 - eta) eta K / 2)).
double cor2(double alpha, double sensitivity_g, double n, double sigma, double eta, double steps);

/// C21 Thm 3, the exact divergence for the squared loss (last equality of its proof, before
/// relaxing): alpha S_g^2 / (4 sigma^2 n^2) (2 - eta)(1 - (1-eta)^K) / (1 + (1-eta)^K).
double thm3_exact(double alpha, double sensitivity_g, double n, double sigma, double eta, double steps);

/// C21 Thm 3, the stated lower bound: alpha S_g^2 / (4 sigma^2 n^2) (1 - exp(-eta K)).
double thm3_lower(double alpha, double sensitivity_g, double n, double sigma, double eta, double steps);

/// Composition baseline (moments accountant, C21 App. E): alpha S_g^2 eta K / (4 n^2 sigma^2) for
/// K steps; for one step of size eta and noise sigma, alpha S_g^2 eta / (4 n^2 sigma^2).
double composition(double alpha, double sensitivity_g, double n, double sigma, double eta, double steps);

}  // namespace rdpdyn::closed_forms
