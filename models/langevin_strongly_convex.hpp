#pragma once
// The LSI model of `kind = "langevin"` with `[lsi] kind = "strongly-convex"` (docs/analyses.md,
// "ganesh-lemma-i2", and docs/config.md). The run is C21's diffusion
// dTheta = -grad L ds + sqrt(2 sigma^2) dW_s with a lambda-strongly convex loss L, started at
// N(0, (sigma^2/lambda) I) for both datasets (Ganesh, Thakurta & Upadhyay 2022, arXiv:2204.01585,
// Lemma I.2's start N(0, I/(beta m)) with beta = 1/sigma^2, m = lambda).
//
// Why c(t) = lambda/sigma^2 at every t (C21 Def. 3.2 convention: N(0, v I) is 1/v-LSI):
// - in time u = sigma^2 s the diffusion is dTheta = -grad V du + sqrt(2) dW_u with V = L/sigma^2,
//   which is kappa-strongly convex, kappa = lambda/sigma^2;
// - for such a V the law at time u of a c_0-LSI start is c_u-LSI with
//   1/c_u <= e^{-2 kappa u}/c_0 + (1 - e^{-2 kappa u})/kappa: the kernel P_u is
//   kappa/(1 - e^{-2 kappa u})-LSI (local LSI under Bakry-Emery's CD(kappa, inf)) and
//   |grad P_u f| <= e^{-kappa u} P_u |grad f|; split the entropy of the mixture (the steps are in
//   docs/analyses.md, "ganesh-lemma-i2"; the seed-001 digest, section 4B item 9, states the same);
// - the start is 1/(sigma^2/lambda) = kappa-LSI, so c_0 = kappa and 1/c_u <= 1/kappa at every u.
// No smoothness and no step size enter (unlike C21 Lemma 5's noisy GD, c = lambda/(2 sigma^2)).

namespace rdpdyn::langevin_strongly_convex {

/// LSI constant of every law of the run: lambda / sigma^2 (the derivation above).
inline double lsi_constant(double lambda, double sigma) { return lambda / (sigma * sigma); }

/// Variance per coordinate of the declared start N(0, (sigma^2/lambda) I): 1 / lsi_constant.
inline double start_variance(double lambda, double sigma) { return sigma * sigma / lambda; }

}  // namespace rdpdyn::langevin_strongly_convex
