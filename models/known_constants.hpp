#pragma once
// What the tool knows, it checks. Where the run itself defines a constant that the configuration
// also declares — the Hessian of a quadratic loss, the squared loss |theta - x|^2/2 (Hessian I,
// start theta_0 = 0), a stated Gaussian start N(mu, s^2 I) — the declaration is compared with
// the known value, in the safe direction, and a contradiction is a SpecError naming the key, the
// declared value, the known value and the rule (docs/config.md, "Declared constants checked
// against the run"). Where only the user can vouch (a generic loss), constant_provenance says so.
//
// Rounding policy (the known values come from a floating-point eigensolver and recursions): a
// known bound is rounded in the direction that never rejects a correct declaration, by a rigorous
// bound on the rounding error (a few ulps of |H| for the eigenvalues; see enclose_symmetric_spectrum),
// and nothing more. So a declaration that is wrong by more than that error (e.g. lambda 3e-7 above
// h_min) is rejected, and one equal to the exact value is accepted.
#include <Eigen/Dense>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/run_spec.hpp"

namespace rdpdyn {

/// An enclosure of the spectrum of a real symmetric matrix from a floating-point eigensolver:
/// for every i, SOME exact eigenvalue lies in [eigenvalues[i] - radius[i], eigenvalues[i] + radius[i]].
struct SpectrumEnclosure {
  std::vector<double> eigenvalues;  ///< computed (Eigen::SelfAdjointEigenSolver), ascending
  std::vector<double> radius;       ///< residual radius, rounding of its own evaluation included

  /// h_min <= eigenvalues[0] + radius[0] (an exact eigenvalue lies at or below it).
  double min_upper() const { return eigenvalues.front() + radius.front(); }
  /// h_max >= eigenvalues.back() - radius.back().
  double max_lower() const { return eigenvalues.back() - radius.back(); }
};

/// Eigenvalues of the symmetric matrix S by Eigen::SelfAdjointEigenSolver, each enclosed by the
/// residual bound for symmetric matrices: for any x != 0 and mu, some eigenvalue h of S satisfies
/// |h - mu| <= |S x - mu x| / |x| (expand x in an orthonormal eigenbasis of S:
/// |(S - mu) x|^2 = sum_j (h_j - mu)^2 c_j^2 >= min_j (h_j - mu)^2 |x|^2). The radius adds a bound
/// on the rounding error of evaluating the residual, 4 (d + 3) u (|S|_F + |mu|) with u = 2^-53
/// (8.3e-15 to 1.3e-14 for the 3 x 3 example of docs/config.md): a few ulps of |S| per dimension.
SpectrumEnclosure enclose_symmetric_spectrum(const Eigen::MatrixXd& S);

/// What the run defines about its dynamics: the Hessian spectrum of its loss, where it comes from,
/// and the variance of a stated isotropic Gaussian start (none: a point start).
struct KnownDynamics {
  std::string source;  ///< "quadratic.hessian" or "the squared loss"
  bool squared = false;
  SpectrumEnclosure spectrum;         ///< {1} exactly for the squared loss
  std::optional<double> initial_std;  ///< s of a stated start N(mu, s^2 I) (quadratic.initial_std)
};

/// The dynamics a run with loss "squared" or "quadratic" defines; nullopt for a generic loss and
/// for Langevin diffusion.
std::optional<KnownDynamics> known_dynamics(const RunSpec& spec);

/// For a quadratic loss with H's eigenvalues h_i, the gradient map theta - eta H (theta - x) has
/// Lipschitz constant max_i |1 - eta h_i|. Returns {nominal value, a lower bound of the exact
/// value} over the enclosure.
struct LipschitzBounds {
  double nominal = 0.0;
  double lower = 0.0;
};
LipschitzBounds gradient_map_lipschitz_of(const SpectrumEnclosure& spectrum, double eta);

/// The smallest exact LSI constant of the iterate laws over the run, 1 / sup_t lambda_max(Sigma(t))
/// (a Gaussian N(m, S) is 1/lambda_max(S)-LSI: N(0, I) is 1-LSI and S^{1/2} is sqrt(lambda_max(S))-
/// Lipschitz, C21 Lemma 8). For a loss with Hessian H and a start N(mu, s^2 I) or a point (s = 0),
/// Sigma commutes with H and along an eigenvector of eigenvalue h the variance follows
/// v_{k+1} = (1 - eta h)^2 v_k + 2 eta sigma^2 (C21 Thm 3 proof with 1 - eta -> 1 - eta h); within a
/// step it grows monotonically to the step's end. Returns the nominal value, an UPPER bound of the
/// exact one (variances bounded from below over the enclosure, every operation rounded down), and
/// the step (0: the initial law) where the nominal value is attained. +infinity with no steps and
/// a point start.
struct LsiInfimum {
  double nominal = 0.0;
  double upper = 0.0;
  std::int64_t step = 0;
};
LsiInfimum exact_lsi_infimum(const KnownDynamics& known, const std::vector<Phase>& phases);

/// Throws SpecError where a declared constant contradicts what the run defines (see the file
/// comment and docs/config.md). Called by check_model_assumptions.
void check_declared_constants(const RunSpec& spec);

/// Which constants of the run are declared (the user vouches for them; the tool cannot check
/// them) and which are derived or checked from what the run defines. One "key = value (why)"
/// entry each. Written by solve (HDF5 root attributes, JSON) and compare (JSON, table, HDF5).
struct ConstantProvenance {
  std::vector<std::string> declared;
  std::vector<std::string> derived;
};
ConstantProvenance constant_provenance(const RunSpec& spec);

/// The variance s^2 of the stated start, if the run states one (inverse LSI constant of the
/// initial law); recursion runs without lsi.c0 start from it.
std::optional<double> stated_initial_variance(const RunSpec& spec);

}  // namespace rdpdyn
