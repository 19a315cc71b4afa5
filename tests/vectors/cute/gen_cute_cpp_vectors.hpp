// Helpers of the C++ vector generator (gen_cute_cpp_vectors.py includes this
// in every translation unit it writes). My own code: it only calls CuTe's
// public API. Each case_N of a generated unit prints
// "N \t cute::print(result) \t true_fn"; each facts_N prints "N \t injective".
#pragma once
#include <cute/layout.hpp>
#include <cute/layout_composed.hpp>
#include <cute/swizzle_layout.hpp>
#include <cstdio>
#include <set>
#include <utility>
using namespace cute;

template <class T> struct is_composed : false_type {};
template <class A, class O, class B> struct is_composed<ComposedLayout<A, O, B>> : true_type {};
template <class L> auto inner(L const& l) {
  if constexpr (is_composed<L>::value) { return l.layout_b(); } else { return l; }
}

// R(i) == A(B(i)) for i < size(B): A evaluated past its size along its last mode.
template <class A, class B> bool comp_ok(A const& a, B const& b) {
  auto r = composition(a, b);
  for (int i = 0; i < int(size(b)); ++i) {
    if (int(r(i)) != int(a(int(b(i))))) return false;
  }
  return true;
}
template <class A, class T, class F, size_t... I>
bool each_mode(A const& a, T const& t, F f, std::index_sequence<I...>) {
  return (true && ... && f(layout<I>(a), get<I>(t)));
}
template <class A, class T> bool tiler_ok(A const& a, T const& t) {
  if constexpr (is_tuple<T>::value) {
    return each_mode(a, t, [](auto const& x, auto const& y) { return tiler_ok(x, y); },
                     std::make_index_sequence<tuple_size<T>::value>{});
  } else if constexpr (is_underscore<T>::value) { return true; }
  else if constexpr (is_integral<T>::value) { return comp_ok(a, make_layout(t, Int<1>{})); }
  else { return comp_ok(a, t); }
}
template <class A, class T> bool div_ok(A const& a, T const& t) {
  if constexpr (is_tuple<T>::value) {
    return each_mode(a, t, [](auto const& x, auto const& y) { return div_ok(x, y); },
                     std::make_index_sequence<tuple_size<T>::value>{});
  } else if constexpr (is_underscore<T>::value) { return true; }
  else if constexpr (is_integral<T>::value) { return div_ok(a, make_layout(t)); }
  else { return comp_ok(a, make_layout(t, complement(t, shape(coalesce(a))))); }
}
template <class A, class T> bool prod_ok(A const& a, T const& t) {
  if constexpr (is_tuple<T>::value) {
    return each_mode(a, t, [](auto const& x, auto const& y) { return prod_ok(x, y); },
                     std::make_index_sequence<tuple_size<T>::value>{});
  } else if constexpr (is_underscore<T>::value) { return true; }
  else if constexpr (is_integral<T>::value) { return prod_ok(a, make_layout(t)); }
  else { return comp_ok(complement(a, size(a) * cosize(t)), t); }
}
template <class A, class B> bool rank_prod_ok(A const& a, B const& b) {
  constexpr int R = cute::max(int(decltype(rank(a))::value), int(decltype(rank(b))::value));
  return prod_ok(append<R>(a), append<R>(b));
}
// tile_to_shape(block, trg, ord) is blocked_product(padded block, ordered layout): check that one.
template <class A, class S, class O> bool tile_ok(A const& a, S const& trg, O const& ord) {
  constexpr int R = rank_v<S>;
  auto padded = append<R>(a);
  auto product_shape = ceil_div(product_each(trg), product_each(shape(padded)));
  return rank_prod_ok(padded, make_ordered_layout(product_shape, ord));
}
template <class L> int injective(L const& l) {
  std::set<long long> seen;
  for (int i = 0; i < int(size(l)); ++i) {
    if (!seen.insert((long long)l(i)).second) return 0;
  }
  return 1;
}
template <class R> void emit(int id, R const& r, const char* ok) {
  printf("%d\t", id);
  print(r);
  printf("\t%s\n", ok);
}
template <class R> void emit(int id, R const& r, bool ok) { emit(id, r, ok ? "1" : "0"); }
