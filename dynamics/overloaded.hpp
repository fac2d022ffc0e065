#pragma once
// Visitor helper for std::visit over the variants of a privacy program.
namespace rdpdyn {
template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;
}  // namespace rdpdyn
