#pragma once
// "Did you mean ...?" for a misspelt name: the closest candidate by edit distance (insertions,
// deletions, substitutions and transpositions of adjacent letters: optimal string alignment).
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace rdpdyn {

/// Edit distance between a and b, adjacent transpositions counting 1 ("jsno" -> "json": 1).
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

/// The candidate closest to `word` if it is a near miss (distance <= 2, and < half the word's
/// length for short words), else "".
inline std::string closest_name(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = 3;
  for (const auto& c : candidates) {
    // The distance is at least the difference in length: a long word (a multi-megabyte value) is
    // no near miss of any name, and its table would not fit in memory.
    if (std::max(word.size(), c.size()) - std::min(word.size(), c.size()) >= best_distance) continue;
    const std::size_t dist = edit_distance(word, c);
    if (dist < best_distance && 2 * dist < std::max(word.size(), c.size())) best = c, best_distance = dist;
  }
  return best;
}

}  // namespace rdpdyn
