#pragma once
// The orders the DP-SGD libraries evaluate Rényi DP at when a user names none: opacus'
// RDPAccountant.DEFAULT_ALPHAS (opacus/accountants/rdp.py: [1 + x / 10.0 for x in range(1, 100)] +
// list(range(12, 64)); 151 orders), also tensorflow/privacy's. An accounting-only run without
// [orders], rdpdyn.dpsgd_epsilon and the DpEvent / opacus imports take them.
#include <vector>

namespace rdpdyn {

inline std::vector<double> peer_default_orders() {
  std::vector<double> orders;
  for (int x = 1; x < 100; ++x) orders.push_back(1.0 + x / 10.0);
  for (int a = 12; a < 64; ++a) orders.push_back(a);
  return orders;
}

}  // namespace rdpdyn
