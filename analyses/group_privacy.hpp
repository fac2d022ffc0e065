#pragma once
// Users, not records ([domain] records_per_user = k, docs/analyses.md "Users: group privacy"):
// neighbouring datasets differ in the records of one user, at most k of them. An entry that does not
// take groups itself (Analysis::takes_groups) is evaluated for records and made user-level here:
//  - a Gaussian-DP result (mu): k mu (Dong, Roth & Su 2022, arXiv:1905.02383, Thm 2.14, group
//    privacy of f-DP: G_mu for records gives G_{k mu} for groups of k);
//  - the Rényi column: Mironov 2017 ("Rényi Differential Privacy", arXiv:1702.07476) Prop. 2: an
//    (alpha, eps)-RDP mechanism is (alpha / 2^c, 3^c eps)-RDP for groups of 2^c records when
//    alpha >= 2^(c+1). With 2^c >= k, R_user(alpha) <= 3^c R(2^c max(alpha, 2)) (below order 2 the
//    order-2 value: Rényi divergences are non-decreasing in the order); R at 2^c max(alpha, 2) is
//    taken from the entry's continuous R where it has one, else from the smallest recorded order at
//    or above it (R is non-decreasing in the order), else +infinity (no bound at that order);
//  - (epsilon, delta): Vadhan 2017 ("The Complexity of Differential Privacy") Lemma 2.2, with the sum
//    of its proof: (eps, delta) for records gives (k eps, delta (e^{k eps} - 1) / (e^eps - 1)) for
//    groups of k (the delta of each record of the group, e^{i eps} delta, added for i < k). The
//    record-level delta at eps is the entry's smallest certified one (its PLD profile, or its R
//    converted at the best order); epsilon is the smallest certified k eps at the user-level delta.
// compare then takes the smaller of the Rényi conversion and this route, as for every entry.
#include <cstdint>
#include <span>
#include <vector>

#include "analyses/analysis.hpp"

namespace rdpdyn {

/// The orders 2^c max(alpha, 2) at which the record-level R gives the user-level R at `orders`
/// (increasing, without repeats), 2^c >= k.
std::vector<double> stretched_orders(std::int64_t k, std::span<const double> orders);

/// The user-level result of a record-level one, groups of at most k >= 2 records (see above).
/// `record_R_stretched`, when given: the record-level R at stretched_orders(k, orders) (an entry
/// cheap at any order evaluates there); else R is looked up among the recorded orders.
AnalysisResult user_level(AnalysisResult record_level, std::int64_t k, std::span<const double> orders,
                          const std::vector<double>* record_R_stretched = nullptr);

/// delta (e^{k eps} - 1) / (e^eps - 1): the user-level delta of a record-level (eps, delta) for
/// groups of k (Vadhan 2017, Lemma 2.2's proof), rounded up.
double group_delta(double record_epsilon, double record_delta, std::int64_t k);

}  // namespace rdpdyn
