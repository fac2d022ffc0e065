#pragma once
// The dominating pairs of Gaussian mechanisms in one dimension: a finite mixture of unit-variance
// Gaussians with nonnegative means against the standard Gaussian, in either direction.
//
//   forward:  P = sum_j w_j N(m_j, 1),  Q = N(0, 1)
//   reverse:  P = N(0, 1),              Q = sum_j w_j N(m_j, 1)
//
// Covers: the Gaussian mechanism (one component, m = mu = sensitivity / noise std; Dong, Roth & Su
// 2022, arXiv:1905.02383, Cor 2.13); the Poisson-subsampled Gaussian under add/remove adjacency
// ((1-q) N(0,1) + q N(mu,1) against N(0,1), "remove" = forward, "add" = reverse; Mironov, Talwar &
// Zhang 2019, arXiv:1908.10530, Sec. 3; Zhu, Dong & Wang 2022, arXiv:2106.08567, Table 1); and
// binomial mixtures (the last iterate of a linear loss, Steinke et al. 2025, arXiv:2410.06186).
//
// The loss L(x) = log sum_j w_j exp(m_j x - m_j^2/2) of the forward pair is increasing (and convex)
// in x, so the optimal set of H_{e^eps} is a half-line {x > t} (forward) or {x < t} (reverse), and
// with the Mills ratio M(x) = Phi(-x)/phi(x) the profile is a sum of nonnegative terms (no
// cancellation, docs/pld.md "The profiles"):
//   forward:  delta(L(t))  = sum_j w_j phi(t - m_j) [M(t - m_j) - M(t)]
//   reverse:  delta(-L(t)) = sum_j w_j phi(t - m_j) [M(-t) - M(m_j - t)] / sum_j w_j e^{m_j t - m_j^2/2}
// At a requested epsilon the threshold t is bracketed so that the exact loss at the two ends lies
// on either side of epsilon (with the loss's evaluation error), and delta is monotone in epsilon:
// the two values bracket delta(epsilon) without relying on the root being exact.
#include <limits>
#include <vector>

#include "accounting/pld/dominating_pair.hpp"

namespace rdpdyn::pld {

struct MixtureComponent {
  double weight = 0.0;  ///< w_j > 0; the weights sum to 1
  double mean = 0.0;    ///< m_j >= 0, in units of the noise standard deviation
};

class GaussianMixturePair final : public DominatingPair {
 public:
  enum class Direction { Forward, Reverse };
  /// Components with positive weights summing to 1 (within 1e-12) and finite means >= 0, at least
  /// one mean > 0. Throws std::invalid_argument otherwise.
  GaussianMixturePair(std::vector<MixtureComponent> components, Direction direction, std::string label);

  Approx hockey_stick(double epsilon) const override;
  void loss_range(double tail, double& lo, double& hi) const override;
  std::string describe() const override { return label_; }

  /// The forward loss L(x) and a bound on its evaluation error.
  Approx forward_loss(double x) const;

 private:
  /// A point x and its forward loss L(x) (the loss is what every caller needs next).
  struct Threshold {
    double x;
    Approx loss;
  };
  Threshold threshold_for(double target_forward_loss, bool above) const;
  double newton_root(double target_forward_loss) const;
  double forward_slope(double x) const;
  // delta at the exact loss of threshold t, its error bound, and P(L > that loss)
  double forward_value(double t, double& error, double& p_tail) const;
  double reverse_value(double t, const Approx& loss_at_t, double& error, double& p_tail) const;

  std::vector<MixtureComponent> components_;
  std::vector<double> log_weights_;  ///< log w_j, once (every evaluation needs them)
  Direction direction_;
  std::string label_;
  double zero_weight_ = 0.0;  ///< total weight of the components with mean 0 (the loss's infimum is its log)
  double log_zero_weight_ = -std::numeric_limits<double>::infinity();
  double max_mean_ = 0.0;
  double min_mean_ = 0.0;
};

/// N(mu, 1) against N(0, 1): the Gaussian mechanism with mu = sensitivity / noise std.
GaussianMixturePair gaussian_pair(double mu);
/// The Poisson-subsampled Gaussian with rate q and mu = 1/z under add/remove adjacency: "remove"
/// (forward) or "add" (reverse).
GaussianMixturePair subsampled_gaussian_pair(double q, double mu, GaussianMixturePair::Direction direction);

}  // namespace rdpdyn::pld
