// Corpus generator: prints CuTe objects exactly as CuTe prints them.
//
// Build and run with gen_cute_print.sh (host-only g++, no GPU, no nvcc).
//
// Usage: gen_cute_print [print|ostream|multiline]
//   print     (default) one TSV row per object, printed with cute::print():
//               what \t printed \t size \t cosize \t table
//   ostream   the same rows, but the printed column comes from operator<<
//             (the shell script diffs the two modes; they must agree)
//   multiline multi-line outputs (print_layout tables, print(MMA_Atom),
//             print(TiledMMA)), each block preceded by a line "### <what>"
//
// Columns:
//   what     the C++ expression that built the object (stringized)
//   printed  cute::print(obj) / std::cout << obj
//   size     size(obj) for layouts and shapes; for swizzles the domain 64
//   cosize   cosize(obj) for integer-valued layouts; empty otherwise
//   table    comma-separated obj(i) for i < min(size,64) (integer-valued
//            layouts and swizzles); empty where the codomain is not an
//            integer (ScaledBasis strides) or the object is not a function.
#include <cute/tensor.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/copy_atom.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cute/atom/copy_traits_sm90.hpp>
#include <cute/util/print_tensor.hpp>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

using namespace cute;

static bool g_ostream = false;

// ---------------------------------------------------------------------------
// helpers

template <class T, class = void>
struct int_valued : std::false_type {};
template <class T>
struct int_valued<T, std::void_t<decltype(std::declval<T const&>()(0))>>
    : std::is_convertible<decltype(std::declval<T const&>()(0)), long long> {};

template <class T>
static void print_obj(T const& x) {
  if (g_ostream) {
    std::ostringstream os;
    os << x;
    std::fputs(os.str().c_str(), stdout);
  } else {
    cute::print(x);
  }
}

static void begin(const char* what) {
  std::fflush(stdout);
  std::printf("%s\t", what);
}

// Layout or ComposedLayout.
template <class L>
static void emit_layout(const char* what, L const& l) {
  begin(what);
  print_obj(l);
  long long sz = (long long)(cute::size(l));
  std::printf("\t%lld\t", sz);
  if constexpr (int_valued<L>::value) {
    std::printf("%lld\t", (long long)(cute::cosize(l)));
    long long n = sz < 64 ? sz : 64;
    for (long long i = 0; i < n; ++i) {
      std::printf(i ? ",%lld" : "%lld", (long long)(l(int(i))));
    }
  } else {
    std::printf("\t");
  }
  std::printf("\n");
}

// ComposedLayout whose offset is a smem_ptr_flag (GMMA atoms): size only.
template <class L>
static void emit_print_size(const char* what, L const& l) {
  begin(what);
  print_obj(l);
  std::printf("\t%lld\t\t\n", (long long)(cute::size(l)));
}

template <int B, int M, int S>
static void emit_swizzle(const char* what, Swizzle<B, M, S> const& sw, int step = 1) {
  begin(what);
  print_obj(sw);
  std::printf("\t64\t\t");
  for (int i = 0; i < 64; ++i) {
    std::printf(i ? ",%d" : "%d", int(sw(i * step)));
  }
  std::printf("\n");
}

// IntTuple used as a shape: printed + size.
template <class T>
static void emit_shape(const char* what, T const& t) {
  begin(what);
  print_obj(t);
  std::printf("\t%lld\t\t\n", (long long)(cute::size(t)));
}

// Anything else (coordinates, strides, steps, tilers, bases): printed only.
template <class T>
static void emit_value(const char* what, T const& t) {
  begin(what);
  print_obj(t);
  std::printf("\t\t\t\n");
}

#define LAYOUT(...) emit_layout(#__VA_ARGS__, __VA_ARGS__)
#define PSIZE(...) emit_print_size(#__VA_ARGS__, __VA_ARGS__)
#define SWIZZLE(...) emit_swizzle(#__VA_ARGS__, __VA_ARGS__)
// table = sw(STEP*i): for Sw<B,M,S> with M+S >= 6 the first 64 inputs are fixed points.
#define SWIZZLE_STEP(STEP, ...) emit_swizzle(#__VA_ARGS__ " @ " #STEP "*i", __VA_ARGS__, STEP)
#define SHAPE(...) emit_shape(#__VA_ARGS__, __VA_ARGS__)
#define VALUE(...) emit_value(#__VA_ARGS__, __VA_ARGS__)

// Type-level objects (MMA/Copy traits members) are named by their type.
#define LAYOUT_T(...) emit_layout(#__VA_ARGS__, __VA_ARGS__{})
#define SHAPE_T(...) emit_shape(#__VA_ARGS__, __VA_ARGS__{})

using _m1 = Int<-1>;
using _11 = Int<11>;
using _13 = Int<13>;
using _20 = Int<20>;
using _59 = Int<59>;

static void rows() {
  // ------------------------------------------------------------ plain layouts
  LAYOUT(make_layout(make_shape(Int<4>{}, Int<8>{})));
  LAYOUT(make_layout(make_shape(Int<4>{}, Int<8>{}), LayoutRight{}));
  LAYOUT(make_layout(make_shape(4, 8)));
  LAYOUT(make_layout(make_shape(4, 8), LayoutRight{}));
  LAYOUT(make_layout(make_shape(4, Int<8>{})));
  LAYOUT(make_layout(make_shape(Int<4>{}, 8)));
  LAYOUT(make_layout(make_shape(Int<4>{}, 8), LayoutRight{}));
  LAYOUT(make_layout(make_shape(4, 8), make_stride(Int<1>{}, 4)));
  LAYOUT(make_layout(make_shape(4, 8), make_stride(8, 1)));
  LAYOUT(Layout<Shape<Shape<_4, _8>, Shape<_2, _2, _2>>, Stride<Stride<_32, _1>, Stride<_16, _8, _128>>>{});
  LAYOUT(Layout<_8>{});
  LAYOUT(Layout<_8, _2>{});
  LAYOUT(make_layout(Int<8>{}));
  LAYOUT(make_layout(8));
  LAYOUT(make_layout(8, 3));
  LAYOUT(Layout<Shape<_8>>{});
  LAYOUT(make_layout(make_shape(Int<8>{})));
  LAYOUT(make_layout(make_shape(Int<1>{})));
  LAYOUT(make_layout(make_shape(1)));
  LAYOUT(Layout<_1>{});
  LAYOUT(Layout<Shape<_1>, Stride<_0>>{});
  LAYOUT(Layout<Shape<_4, _1, _8>>{});
  LAYOUT(make_layout(make_shape(Int<4>{}, Int<1>{}, Int<8>{}), LayoutRight{}));
  LAYOUT(make_layout(make_shape(1, 8)));
  LAYOUT(make_layout(make_shape(4, 1, 8)));
  LAYOUT(Layout<Shape<_4, _8>, Stride<_0, _1>>{});
  LAYOUT(Layout<Shape<_4, _8>, Stride<_1, _0>>{});
  LAYOUT(make_layout(make_shape(4, 8), make_stride(Int<0>{}, 1)));
  LAYOUT(make_layout(make_shape(4, 8), make_stride(0, 1)));
  LAYOUT(Layout<Shape<_4>, Stride<_m1>>{});
  LAYOUT(Layout<Shape<_4, _2>, Stride<_m1, _4>>{});
  LAYOUT(make_layout(make_shape(Int<2>{}, Int<3>{}, Int<4>{})));
  LAYOUT(make_layout(make_shape(Int<2>{}, Int<3>{}, Int<4>{}), LayoutRight{}));
  LAYOUT(make_ordered_layout(make_shape(Int<4>{}, Int<8>{}, Int<2>{}), make_step(Int<1>{}, Int<0>{}, Int<2>{})));
  LAYOUT(make_layout(make_shape(make_shape(2, Int<4>{}), 3), make_stride(make_stride(12, Int<1>{}), 4)));
  LAYOUT(make_layout(make_shape(make_shape(2, 4), make_shape(3, 5))));
  LAYOUT(make_layout(make_shape(make_shape(Int<2>{}, Int<4>{}), make_shape(Int<3>{}, Int<5>{})), LayoutRight{}));
  LAYOUT(Layout<Shape<_2, Shape<_1, _6>>, Stride<_1, Stride<_6, _2>>>{});
  LAYOUT(Layout<Shape<Shape<_2, _2>, Shape<_2, _2>>, Stride<Stride<_1, _4>, Stride<_2, _8>>>{});
  LAYOUT(Layout<Shape<Shape<Shape<_2, _2>, _2>, _4>>{});
  LAYOUT(Layout<Shape<_128, _64>, Stride<_64, _1>>{});
  LAYOUT(make_layout(make_shape(int64_t(4), int64_t(8))));
  LAYOUT(make_layout(make_shape(uint32_t(4), uint32_t(8))));
  LAYOUT(make_layout(make_shape(Int<4>{}, Int<8>{}), make_stride(Int<8>{}, Int<1>{})));
  LAYOUT(make_layout(make_layout(Int<4>{}, Int<2>{}), make_layout(Int<3>{}, Int<8>{})));
  LAYOUT(make_layout(make_shape(Int<3>{}, Int<5>{}), make_stride(Int<5>{}, Int<1>{})));

  // ---------------------------------------------------------------- algebra
  LAYOUT(coalesce(Layout<Shape<_2, Shape<_1, _6>>, Stride<_1, Stride<_6, _2>>>{}));
  LAYOUT(coalesce(Layout<Shape<_4, _8>, Stride<_8, _1>>{}));
  LAYOUT(coalesce(Layout<Shape<_4, _8>, Stride<_1, _4>>{}));
  LAYOUT(coalesce(make_layout(make_shape(2, 4), make_stride(1, 2))));
  LAYOUT(coalesce(Layout<Shape<_2, _1, _3>, Stride<_1, _7, _2>>{}));
  LAYOUT(coalesce(Layout<Shape<Shape<_2, _2>, Shape<_2, _2>>, Stride<Stride<_1, _2>, Stride<_4, _8>>>{}, Step<_1, _1>{}));
  LAYOUT(coalesce(Layout<Shape<_1, _1>, Stride<_3, _5>>{}));
  LAYOUT(filter(Layout<Shape<_4, _2, _8>, Stride<_2, _0, _8>>{}));
  LAYOUT(filter_zeros(Layout<Shape<_4, _2, _8>, Stride<_2, _0, _8>>{}));
  LAYOUT(composition(Layout<Shape<_20, _2>, Stride<_16, _4>>{}, Layout<Shape<_4, _5>, Stride<_1, _4>>{}));
  LAYOUT(composition(make_layout(make_shape(10, 2), make_stride(16, 4)), make_layout(make_shape(5, 4), make_stride(1, 5))));
  LAYOUT(composition(Layout<Shape<_6, _2>, Stride<_8, _2>>{}, Layout<Shape<_4, _3>, Stride<_3, _1>>{}));
  LAYOUT(composition(Layout<Shape<_12, Shape<_4, _8>>, Stride<_59, Stride<_13, _1>>>{}, make_tile(Layout<_3, _4>{}, Layout<_8, _2>{})));
  LAYOUT(composition(Layout<Shape<_12, _32>, Stride<_32, _1>>{}, make_shape(Int<4>{}, Int<8>{})));
  LAYOUT(composition(Layout<Shape<_4, _8>, Stride<_8, _1>>{}, Layout<_32, _1>{}));
  LAYOUT(composition(Layout<_32, _2>{}, Layout<Shape<_4, _8>, Stride<_8, _1>>{}));
  LAYOUT(complement(Layout<Shape<_2, _2>, Stride<_1, _6>>{}, Int<24>{}));
  LAYOUT(complement(Layout<_4, _2>{}, Int<24>{}));
  LAYOUT(complement(Layout<_4, _2>{}, 24));
  LAYOUT(complement(Layout<Shape<_2, _4>, Stride<_1, _6>>{}));
  LAYOUT(complement(Layout<_4, _1>{}, Int<32>{}));
  LAYOUT(complement(Layout<Shape<_4, _2>, Stride<_1, _16>>{}, Int<64>{}));
  LAYOUT(logical_divide(Layout<Shape<_4, _2, _3>, Stride<_2, _1, _8>>{}, Layout<_4, _2>{}));
  LAYOUT(logical_divide(Layout<Shape<_9, Shape<_4, _8>>, Stride<_59, Stride<_13, _1>>>{}, make_tile(Layout<_3, _3>{}, Layout<Shape<_2, _4>, Stride<_1, _8>>{})));
  LAYOUT(logical_divide(Layout<Shape<_16, _32>>{}, Shape<_4, _8>{}));
  LAYOUT(zipped_divide(Layout<Shape<_9, Shape<_4, _8>>, Stride<_59, Stride<_13, _1>>>{}, make_tile(Layout<_3, _3>{}, Layout<Shape<_2, _4>, Stride<_1, _8>>{})));
  LAYOUT(zipped_divide(Layout<Shape<_16, _32>>{}, Shape<_4, _8>{}));
  LAYOUT(tiled_divide(Layout<Shape<_16, _32>>{}, Shape<_4, _8>{}));
  LAYOUT(flat_divide(Layout<Shape<_16, _32>>{}, Shape<_4, _8>{}));
  LAYOUT(logical_divide(make_layout(make_shape(16, 32)), Shape<_4, _8>{}));
  LAYOUT(logical_product(Layout<Shape<_2, _2>, Stride<_4, _1>>{}, Layout<_6, _1>{}));
  LAYOUT(logical_product(Layout<Shape<_2, _2>, Stride<_4, _1>>{}, Layout<_4, _2>{}));
  LAYOUT(logical_product(Layout<Shape<_2, _5>, Stride<_5, _1>>{}, make_tile(Layout<_3, _5>{}, Layout<_4, _6>{})));
  LAYOUT(zipped_product(Layout<Shape<_2, _5>, Stride<_5, _1>>{}, make_tile(Layout<_3, _5>{}, Layout<_4, _6>{})));
  LAYOUT(tiled_product(Layout<Shape<_2, _5>, Stride<_5, _1>>{}, make_tile(Layout<_3, _5>{}, Layout<_4, _6>{})));
  LAYOUT(blocked_product(Layout<Shape<_2, _5>, Stride<_5, _1>>{}, Layout<Shape<_3, _4>, Stride<_1, _3>>{}));
  LAYOUT(raked_product(Layout<Shape<_2, _5>, Stride<_5, _1>>{}, Layout<Shape<_3, _4>, Stride<_1, _3>>{}));
  LAYOUT(blocked_product(Layout<Shape<_2, _2>>{}, Layout<Shape<_4, _8>, Stride<_8, _1>>{}));
  LAYOUT(raked_product(Layout<Shape<_2, _2>>{}, Layout<Shape<_4, _8>, Stride<_8, _1>>{}));
  LAYOUT(right_inverse(Layout<Shape<_4, _8>, Stride<_8, _1>>{}));
  LAYOUT(right_inverse(Layout<Shape<_4, _8>, Stride<_1, _4>>{}));
  LAYOUT(right_inverse(Layout<Shape<_4, _8>, Stride<_2, _8>>{}));
  LAYOUT(right_inverse(Layout<Shape<Shape<_4, _8>, Shape<_2, _2, _2>>, Stride<Stride<_32, _1>, Stride<_16, _8, _128>>>{}));
  LAYOUT(right_inverse(make_layout(make_shape(4, 8), make_stride(8, 1))));
  LAYOUT(left_inverse(Layout<Shape<_4, _8>, Stride<_8, _1>>{}));
  LAYOUT(left_inverse(Layout<Shape<_4, _8>, Stride<_2, _8>>{}));
  LAYOUT(left_inverse(Layout<_4, _2>{}));
  LAYOUT(left_inverse(Layout<Shape<Shape<_4, _8>, Shape<_2, _2, _2>>, Stride<Stride<_32, _1>, Stride<_16, _8, _128>>>{}));
  LAYOUT(max_common_layout(Layout<Shape<_4, _8>, Stride<_1, _4>>{}, Layout<Shape<_4, _8>, Stride<_1, _4>>{}));
  LAYOUT(max_common_layout(Layout<Shape<_4, _8>, Stride<_1, _4>>{}, Layout<Shape<_4, _8>, Stride<_8, _1>>{}));
  LAYOUT(upcast<2>(Layout<Shape<_4, _8>, Stride<_8, _1>>{}));
  LAYOUT(downcast<2>(Layout<Shape<_4, _8>, Stride<_8, _1>>{}));
  LAYOUT(recast_layout<uint16_t, uint32_t>(Layout<Shape<_4, _8>, Stride<_8, _1>>{}));
  LAYOUT(tile_to_shape(Layout<Shape<_8, _8>, Stride<_8, _1>>{}, make_shape(Int<32>{}, Int<64>{})));
  LAYOUT(tile_to_shape(Layout<Shape<_8, _8>, Stride<_8, _1>>{}, make_shape(Int<32>{}, Int<64>{}), Step<_2, _1>{}));
  LAYOUT(make_layout_like(Layout<Shape<_4, _8>, Stride<_8, _1>>{}));
  LAYOUT(get_nonswizzle_portion(Layout<Shape<_4, _8>, Stride<_8, _1>>{}));
  LAYOUT(append(Layout<Shape<_4, _8>>{}, Layout<_2, _32>{}));
  LAYOUT(prepend(Layout<Shape<_4, _8>>{}, Layout<_2, _0>{}));
  LAYOUT(select<1, 0>(Layout<Shape<_4, _8>>{}));
  LAYOUT(flatten(Layout<Shape<Shape<_4, _8>, Shape<_2, _2, _2>>, Stride<Stride<_32, _1>, Stride<_16, _8, _128>>>{}));
  LAYOUT(group<0, 2>(Layout<Shape<_2, _3, _4>>{}));
  LAYOUT(layout<1>(Layout<Shape<Shape<_4, _8>, Shape<_2, _2, _2>>, Stride<Stride<_32, _1>, Stride<_16, _8, _128>>>{}));

  // --------------------------------------------------------------- swizzles
  SWIZZLE(Swizzle<3, 4, 3>{});
  SWIZZLE_STEP(16, Swizzle<3, 4, 3>{});
  SWIZZLE(Swizzle<2, 3, 3>{});
  SWIZZLE_STEP(8, Swizzle<2, 3, 3>{});
  SWIZZLE(Swizzle<1, 4, 3>{});
  SWIZZLE_STEP(16, Swizzle<1, 4, 3>{});
  SWIZZLE_STEP(16, Swizzle<2, 4, 3>{});
  SWIZZLE(Swizzle<3, 3, 3>{});
  SWIZZLE_STEP(8, Swizzle<3, 3, 3>{});
  SWIZZLE(Swizzle<0, 4, 3>{});
  SWIZZLE(Swizzle<2, 0, 2>{});
  SWIZZLE(Swizzle<1, 1, 1>{});
  SWIZZLE_STEP(16, Swizzle<2, 4, -3>{});

  // ------------------------------------------------------ swizzled layouts
  LAYOUT(composition(Swizzle<3, 4, 3>{}, Layout<Shape<_8, _64>, Stride<_64, _1>>{}));
  LAYOUT(composition(Swizzle<3, 3, 3>{}, Layout<Shape<_8, _64>, Stride<_64, _1>>{}));
  LAYOUT(composition(Swizzle<2, 3, 3>{}, Layout<Shape<_8, _32>, Stride<_32, _1>>{}));
  LAYOUT(composition(Swizzle<1, 4, 3>{}, Layout<Shape<_8, _16>, Stride<_16, _1>>{}));
  LAYOUT(composition(Swizzle<3, 3, 3>{}, Layout<Shape<_64, _8>, Stride<_1, _64>>{}));
  LAYOUT(composition(Swizzle<3, 4, 3>{}, make_layout(make_shape(8, 64), make_stride(64, 1))));
  LAYOUT(ComposedLayout<Swizzle<3, 4, 3>, Int<0>, Layout<Shape<_8, _64>, Stride<_64, _1>>>{});
  LAYOUT(ComposedLayout<Swizzle<2, 3, 3>, Int<32>, Layout<Shape<_8, _32>, Stride<_32, _1>>>{});
  LAYOUT(make_composed_layout(Swizzle<3, 3, 3>{}, 0, Layout<Shape<_8, _64>, Stride<_64, _1>>{}));
  LAYOUT(composition(Layout<Shape<_8, _8>, Stride<_8, _1>>{}, Swizzle<1, 1, 1>{}));
  LAYOUT(tile_to_shape(composition(Swizzle<3, 3, 3>{}, Layout<Shape<_8, _64>, Stride<_64, _1>>{}), make_shape(Int<128>{}, Int<64>{})));
  LAYOUT(tile_to_shape(composition(Swizzle<3, 3, 3>{}, Layout<Shape<_8, _64>, Stride<_64, _1>>{}), make_shape(Int<128>{}, Int<64>{}, Int<3>{})));
  LAYOUT(tile_to_shape(composition(Swizzle<2, 3, 3>{}, Layout<Shape<_8, _32>, Stride<_32, _1>>{}), make_shape(Int<64>{}, Int<64>{})));
  LAYOUT(logical_divide(composition(Swizzle<3, 3, 3>{}, Layout<Shape<_8, _64>, Stride<_64, _1>>{}), Shape<_4, _8>{}));
  LAYOUT(composition(composition(Swizzle<3, 3, 3>{}, Layout<Shape<_8, _64>, Stride<_64, _1>>{}), Layout<Shape<_8, _8>>{}));
  LAYOUT(right_inverse(composition(Swizzle<3, 3, 3>{}, Layout<Shape<_8, _64>, Stride<_64, _1>>{})));
  LAYOUT(upcast<2>(composition(Swizzle<3, 4, 3>{}, Layout<Shape<_8, _64>, Stride<_64, _1>>{})));
  PSIZE(GMMA::Layout_K_SW128_Atom<half_t>{});
  PSIZE(GMMA::Layout_K_SW64_Atom<half_t>{});
  PSIZE(GMMA::Layout_K_SW32_Atom<half_t>{});
  PSIZE(GMMA::Layout_K_INTER_Atom<half_t>{});
  PSIZE(GMMA::Layout_MN_SW128_Atom<half_t>{});
  PSIZE(GMMA::Layout_K_SW128_Atom<float>{});
  PSIZE(GMMA::Layout_K_SW128_Atom_Bits{});
  PSIZE(tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{}, make_shape(Int<128>{}, Int<64>{}, Int<4>{})));

  // ------------------------------------------------- MMA traits (TV layouts)
  SHAPE_T(MMA_Traits<SM80_16x8x16_F32F16F16F32_TN>::Shape_MNK);
  LAYOUT_T(MMA_Traits<SM80_16x8x16_F32F16F16F32_TN>::ThrID);
  LAYOUT_T(MMA_Traits<SM80_16x8x16_F32F16F16F32_TN>::ALayout);
  LAYOUT_T(MMA_Traits<SM80_16x8x16_F32F16F16F32_TN>::BLayout);
  LAYOUT_T(MMA_Traits<SM80_16x8x16_F32F16F16F32_TN>::CLayout);
  SHAPE_T(MMA_Traits<SM80_16x8x8_F16F16F16F16_TN>::Shape_MNK);
  LAYOUT_T(MMA_Traits<SM80_16x8x8_F16F16F16F16_TN>::ALayout);
  LAYOUT_T(MMA_Traits<SM80_16x8x8_F16F16F16F16_TN>::BLayout);
  LAYOUT_T(MMA_Traits<SM80_16x8x8_F16F16F16F16_TN>::CLayout);
  LAYOUT_T(MMA_Traits<SM80_16x8x8_F32TF32TF32F32_TN>::ALayout);
  LAYOUT_T(MMA_Traits<SM80_16x8x8_F32TF32TF32F32_TN>::BLayout);
  LAYOUT_T(MMA_Traits<SM80_16x8x8_F32TF32TF32F32_TN>::CLayout);
  LAYOUT_T(MMA_Traits<SM80_8x8x4_F64F64F64F64_TN>::ALayout);
  LAYOUT_T(MMA_Traits<SM80_8x8x4_F64F64F64F64_TN>::BLayout);
  LAYOUT_T(MMA_Traits<SM80_8x8x4_F64F64F64F64_TN>::CLayout);
  LAYOUT_T(MMA_Traits<SM80_16x8x32_S32S8S8S32_TN>::ALayout);
  LAYOUT_T(MMA_Traits<SM80_16x8x32_S32S8S8S32_TN>::BLayout);
  LAYOUT_T(MMA_Traits<SM80_16x8x32_S32S8S8S32_TN>::CLayout);
  LAYOUT_T(MMA_Traits<SM75_16x8x8_F32F16F16F32_TN>::ALayout);
  LAYOUT_T(MMA_Traits<SM75_16x8x8_F32F16F16F32_TN>::BLayout);
  LAYOUT_T(MMA_Traits<SM75_16x8x8_F32F16F16F32_TN>::CLayout);
  LAYOUT_T(MMA_Traits<SM70_8x8x4_F32F16F16F32_NT>::ThrID);
  LAYOUT_T(MMA_Traits<SM70_8x8x4_F32F16F16F32_NT>::ALayout);
  LAYOUT_T(MMA_Traits<SM70_8x8x4_F32F16F16F32_NT>::BLayout);
  LAYOUT_T(MMA_Traits<SM70_8x8x4_F32F16F16F32_NT>::CLayout);
  LAYOUT_T(MMA_Traits<SM61_DP4A>::ALayout);
  LAYOUT_T(MMA_Traits<SM61_DP4A>::CLayout);
  LAYOUT_T(MMA_Traits<UniversalFMA<float, float, float, float>>::ALayout);
  LAYOUT_T(MMA_Traits<SM90_64x64x16_F32F16F16_SS<GMMA::Major::K, GMMA::Major::K>>::ThrID);
  LAYOUT_T(MMA_Traits<SM90_64x64x16_F32F16F16_SS<GMMA::Major::K, GMMA::Major::K>>::ALayout);
  LAYOUT_T(MMA_Traits<SM90_64x64x16_F32F16F16_SS<GMMA::Major::K, GMMA::Major::K>>::BLayout);
  LAYOUT_T(MMA_Traits<SM90_64x64x16_F32F16F16_SS<GMMA::Major::K, GMMA::Major::K>>::CLayout);
  LAYOUT_T(MMA_Traits<SM90_64x64x16_F32F16F16_RS<GMMA::Major::K, GMMA::Major::K>>::ALayout);

  // ------------------------------------------------- Copy traits (bit TV layouts)
  LAYOUT_T(Copy_Traits<SM75_U32x4_LDSM_N>::ThrID);
  LAYOUT_T(Copy_Traits<SM75_U32x4_LDSM_N>::SrcLayout);
  LAYOUT_T(Copy_Traits<SM75_U32x4_LDSM_N>::DstLayout);
  LAYOUT_T(Copy_Traits<SM75_U32x1_LDSM_N>::SrcLayout);
  LAYOUT_T(Copy_Traits<SM75_U32x1_LDSM_N>::DstLayout);
  LAYOUT_T(Copy_Traits<SM75_U16x8_LDSM_T>::SrcLayout);
  LAYOUT_T(Copy_Traits<SM75_U16x8_LDSM_T>::DstLayout);
  LAYOUT_T(Copy_Traits<SM90_U32x4_STSM_N>::SrcLayout);
  LAYOUT_T(Copy_Traits<SM90_U32x4_STSM_N>::DstLayout);
  LAYOUT_T(Copy_Traits<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>>::SrcLayout);
  LAYOUT_T(Copy_Traits<UniversalCopy<uint32_t>>::SrcLayout);

  // ------------------------------------------------------ TiledMMA / TiledCopy
  {
    auto mma = make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2, _2, _1>>{}, Tile<_32, _32, _16>{});
    LAYOUT(mma.get_thr_layout_vmnk());
    LAYOUT(mma.get_layoutA_TV());
    LAYOUT(mma.get_layoutB_TV());
    LAYOUT(mma.get_layoutC_TV());
    auto mma1 = make_tiled_mma(SM80_16x8x8_F16F16F16F16_TN{});
    LAYOUT(mma1.get_thr_layout_vmnk());
    LAYOUT(mma1.get_layoutA_TV());
    LAYOUT(mma1.get_layoutC_TV());
    auto cpy = make_tiled_copy(Copy_Atom<UniversalCopy<uint128_t>, half_t>{}, Layout<Shape<_16, _8>, Stride<_8, _1>>{}, Layout<Shape<_1, _8>>{});
    LAYOUT(cpy.get_layoutS_TV());
    LAYOUT(cpy.get_layoutD_TV());
    VALUE(decltype(cpy)::Tiler_MN{});
    auto ldsm = make_tiled_copy_A(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}, mma);
    LAYOUT(ldsm.get_layoutS_TV());
    LAYOUT(ldsm.get_layoutD_TV());
    VALUE(decltype(ldsm)::Tiler_MN{});
  }

  // ---------------------------------------------- IntTuples, coords, bases
  SHAPE(make_shape(Int<4>{}, Int<8>{}));
  SHAPE(make_shape(4, 8));
  SHAPE(make_shape(4, Int<8>{}));
  SHAPE(make_shape(Int<1>{}));
  SHAPE(make_shape(1));
  SHAPE(make_shape(Int<8>{}));
  SHAPE(make_shape());
  SHAPE(make_shape(make_shape(Int<4>{})));
  SHAPE(make_shape(make_shape(Int<2>{}, Int<2>{}), Int<8>{}));
  SHAPE(make_shape(make_shape(Int<4>{}, Int<8>{}), make_shape(Int<2>{}, Int<2>{}, Int<2>{})));
  SHAPE(make_shape(make_shape(2, 3), make_shape(make_shape(Int<4>{}, 5))));
  SHAPE(Int<8>{});
  SHAPE(8);
  SHAPE(make_shape(int64_t(4), 8u));
  VALUE(make_coord(1, 2));
  VALUE(make_coord(Int<1>{}, 3));
  VALUE(make_coord(_, 2));
  VALUE(make_coord(_, _));
  VALUE(make_coord(make_coord(1, 2), 3));
  VALUE(make_coord());
  VALUE(make_coord(0));
  VALUE(make_stride(Int<1>{}, 0));
  VALUE(make_stride(Int<0>{}, Int<-1>{}));
  VALUE(make_step(Int<1>{}, Int<0>{}));
  VALUE(Step<_2, _1>{});
  VALUE(Int<-3>{});
  VALUE(Int<0>{});
  VALUE(_);
  VALUE(E<0>{});
  VALUE(E<1>{});
  VALUE(E<1, 0>{});
  VALUE(Int<4>{} * E<1>{});
  VALUE(make_tile(Layout<_2, _4>{}, Int<8>{}));
  VALUE(make_tile(Layout<_3, _4>{}, Layout<_8, _2>{}));
  VALUE(Tile<_32, _32, _16>{});
  VALUE(idx2crd(13, make_shape(Int<4>{}, Int<8>{})));
  VALUE(idx2crd(Int<13>{}, make_shape(Int<4>{}, Int<8>{})));
  VALUE(idx2crd(13, make_shape(make_shape(Int<2>{}, Int<2>{}), Int<8>{})));
  VALUE(crd2idx(make_coord(1, 3), make_shape(Int<4>{}, Int<8>{})));
  VALUE(shape_div(make_shape(Int<16>{}, Int<32>{}), make_shape(Int<4>{}, Int<8>{})));
  VALUE(product_each(make_shape(make_shape(Int<2>{}, Int<4>{}), Int<8>{})));
  VALUE(make_identity_layout(make_shape(Int<4>{}, Int<8>{})));
  VALUE(make_identity_layout(make_shape(4, 8)));
  VALUE(make_layout(make_shape(Int<4>{}, Int<8>{}), make_stride(E<1>{}, E<0>{})));
  VALUE(make_layout(make_shape(Int<4>{}, Int<8>{}), make_stride(Int<2>{} * E<0>{}, E<1, 0>{})));
}

static void header(const char* what) {
  std::fflush(stdout);
  std::printf("### %s\n", what);
  std::fflush(stdout);
}

static void multiline() {
  header("print_layout(Layout<Shape<_4,_8>,Stride<_8,_1>>{})");
  print_layout(Layout<Shape<_4, _8>, Stride<_8, _1>>{});
  header("print_layout(make_layout(make_shape(3,5)))");
  print_layout(make_layout(make_shape(3, 5)));
  header("print_layout(Layout<Shape<Shape<_2,_2>,_4>,Stride<Stride<_1,_8>,_2>>{})");
  print_layout(Layout<Shape<Shape<_2, _2>, _4>, Stride<Stride<_1, _8>, _2>>{});
  header("print_layout(composition(Swizzle<2,0,2>{}, Layout<Shape<_4,_4>,Stride<_4,_1>>{}))");
  print_layout(composition(Swizzle<2, 0, 2>{}, Layout<Shape<_4, _4>, Stride<_4, _1>>{}));
  header("print(MMA_Atom<SM80_16x8x16_F32F16F16F32_TN>{})");
  print(MMA_Atom<SM80_16x8x16_F32F16F16F32_TN>{});
  header("print(make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2,_1>>{}, Tile<_32,_32,_16>{}))");
  print(make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2, _2, _1>>{}, Tile<_32, _32, _16>{}));
  header("print(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{})");
  print(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{});
  header("print(make_tiled_copy(Copy_Atom<UniversalCopy<uint128_t>,half_t>{}, Layout<Shape<_16,_8>,Stride<_8,_1>>{}, Layout<Shape<_1,_8>>{}))");
  print(make_tiled_copy(Copy_Atom<UniversalCopy<uint128_t>, half_t>{}, Layout<Shape<_16, _8>, Stride<_8, _1>>{}, Layout<Shape<_1, _8>>{}));
  std::fflush(stdout);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "print";
  if (std::strcmp(mode, "multiline") == 0) {
    multiline();
    return 0;
  }
  g_ostream = std::strcmp(mode, "ostream") == 0;
  std::printf("what\tprinted\tsize\tcosize\ttable\n");
  rows();
  std::fflush(stdout);
  return 0;
}
