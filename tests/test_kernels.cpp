// The kernel set on the CPU: every operation against a naive reference loop.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>
#include <vitals/kernels/kernels.hpp>
#include <vitals/threads.hpp>

#include "vitals/cuda_support.hpp"
#include "sanitizers.hpp"

namespace k = vitals::kernels;
using k::Device;
using k::DType;
using k::Tensor;

namespace {

// Naive row-major C = op(A) op(B), in double.
std::vector<double> naive_matmul(const std::vector<double>& a, const std::vector<double>& b, std::int64_t m,
                                 std::int64_t n, std::int64_t kk, bool ta, bool tb) {
    std::vector<double> c(static_cast<std::size_t>(m * n), 0.0);
    for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
            double sum = 0;
            for (std::int64_t p = 0; p < kk; ++p) {
                const double av = ta ? a[static_cast<std::size_t>(p * m + i)] : a[static_cast<std::size_t>(i * kk + p)];
                const double bv = tb ? b[static_cast<std::size_t>(j * kk + p)] : b[static_cast<std::size_t>(p * n + j)];
                sum += av * bv;
            }
            c[static_cast<std::size_t>(i * n + j)] = sum;
        }
    }
    return c;
}

template <class T>
std::vector<double> values(const Tensor& t) {
    const std::vector<T> v = t.to_vector<T>();
    return std::vector<double>(v.begin(), v.end());
}

std::vector<double> as_double(const Tensor& t) {
    return t.dtype() == DType::f32 ? values<float>(t) : values<double>(t);
}

// Tolerances: float products accumulate k rounding errors of ~6e-8 each.
double tolerance(DType dtype) { return dtype == DType::f32 ? 1e-4 : 1e-11; }

void expect_close(const std::vector<double>& actual, const std::vector<double>& expected, double rel) {
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t i = 0; i < actual.size(); ++i) {
        ASSERT_NEAR(actual[i], expected[i], rel * (1.0 + std::fabs(expected[i]))) << "at " << i;
    }
}

class KernelsByDtype : public ::testing::TestWithParam<DType> {};

}  // namespace

TEST(Tensor, ShapeDtypeAndStorage) {
    const Tensor t = Tensor::zeros({2, 3}, DType::f32);
    EXPECT_TRUE(t.defined());
    EXPECT_EQ(t.numel(), 6);
    EXPECT_EQ(t.nbytes(), 24u);
    EXPECT_EQ(t.size(-1), 3);
    EXPECT_EQ(t.to_vector<float>(), std::vector<float>(6, 0.0f));
    EXPECT_EQ(k::describe(t), "float[2, 3] cpu");
    EXPECT_THROW(t.to_vector<double>(), std::invalid_argument);
    EXPECT_THROW(t.size(2), std::out_of_range);
    EXPECT_THROW(Tensor::empty({2, -1}, DType::f32), std::invalid_argument);
    EXPECT_FALSE(Tensor().defined());
    EXPECT_EQ(Tensor::empty({0, 4}, DType::f64).numel(), 0);
}

TEST(Tensor, RandnIsSeededAndSharedAcrossDtypes) {
    const Tensor a = Tensor::randn({1000}, DType::f64, Device::cpu, 42);
    const Tensor b = Tensor::randn({1000}, DType::f64, Device::cpu, 42);
    const Tensor c = Tensor::randn({1000}, DType::f32, Device::cpu, 42);
    EXPECT_EQ(a.to_vector<double>(), b.to_vector<double>());
    const auto av = a.to_vector<double>();
    const auto cv = c.to_vector<float>();
    for (std::size_t i = 0; i < av.size(); ++i) EXPECT_EQ(cv[i], static_cast<float>(av[i]));
    double mean = 0;
    for (double v : av) mean += v / 1000.0;
    EXPECT_NEAR(mean, 0.0, 0.15);
    EXPECT_THROW(Tensor::randn({2}, DType::i64), std::invalid_argument);
}

TEST(Tensor, CudaTensorWithoutADeviceSaysWhy) {
    const std::string reason = vitals::cuda_unavailable_reason();
    if (reason.empty()) GTEST_SKIP() << "a CUDA device is present";
    try {
        Tensor::zeros({4}, DType::f32, Device::cuda);
        FAIL() << "expected an error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot make a CUDA tensor [4]"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }
}

TEST(Allocator, ObserverSeesEveryAllocationAndFree) {
    static std::vector<k::AllocationEvent> events;
    events.clear();
    k::set_allocation_observer([](const k::AllocationEvent& e) { events.push_back(e); });
    const std::int64_t before = k::allocated_bytes(Device::cpu);
    {
        const Tensor t = Tensor::empty({1000}, DType::f64);
        EXPECT_EQ(k::allocated_bytes(Device::cpu), before + 8000);
    }
    k::set_allocation_observer(nullptr);
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].bytes, 8000);
    EXPECT_EQ(events[1].bytes, -8000);
    EXPECT_EQ(events[0].address, events[1].address);
    EXPECT_EQ(events[0].total_allocated, before + 8000);
    EXPECT_EQ(events[1].total_allocated, before);
    EXPECT_GE(events[0].total_reserved, events[0].total_allocated);
    EXPECT_EQ(k::allocated_bytes(Device::cpu), before);
}

// An observer that throws on an allocation refuses it: the block goes back uncounted and
// the error reaches the caller (LeakSanitizer in the sanitizer builds sees no leak). One
// that throws on a free cannot pass its error on (frees run in destructors): it is
// dropped with a warning, not std::terminate.
TEST(Allocator, AThrowingObserverLeaksNothingAndTerminatesNothing) {
    const std::int64_t before = k::allocated_bytes(Device::cpu);
    k::set_allocation_observer([](const k::AllocationEvent& e) {
        if (e.bytes > 0) throw std::runtime_error("observer refuses");
    });
    for (const std::int64_t n : {1000, 1 << 20}) {  // a small block and a cached large one
        EXPECT_THROW((void)Tensor::empty({n}, DType::f32), std::runtime_error);
        EXPECT_EQ(k::allocated_bytes(Device::cpu), before);
    }
    k::set_allocation_observer(nullptr);
    {
        const Tensor t = Tensor::empty({1000}, DType::f32);
        k::set_allocation_observer([](const k::AllocationEvent& e) {
            if (e.bytes < 0) throw std::runtime_error("observer fails on a free");
        });
    }  // t's free: the observer throws, the program goes on
    k::set_allocation_observer(nullptr);
    EXPECT_EQ(k::allocated_bytes(Device::cpu), before);
}

TEST(Allocator, LargeHostBlocksAreReused) {
    k::release_cached_memory();
    const void* first = nullptr;
    {
        Tensor t = Tensor::empty({1 << 20}, DType::f32);
        first = t.raw_data();
    }
    EXPECT_GE(k::cached_bytes(Device::cpu), 4 << 20);
    const Tensor again = Tensor::empty({1 << 20}, DType::f32);
    EXPECT_EQ(again.raw_data(), first);
    k::release_cached_memory();
    EXPECT_EQ(k::cached_bytes(Device::cpu), 0);
}

// Under AddressSanitizer the host allocator poisons what a request does not own: the
// rounding of a block, and a cached block after its free.
TEST(AllocatorDeathTest, OverrunsAndUsesAfterFreeAreReportedUnderAddressSanitizer) {
#if defined(VITALS_TEST_ASAN)
    const std::string style = GTEST_FLAG_GET(death_test_style);
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(
        {
            Tensor small = Tensor::empty({3}, DType::f32);  // a 64-byte block
            static_cast<volatile char*>(small.raw_data())[12] = 1;
        },
        "AddressSanitizer");
    EXPECT_DEATH(
        {
            Tensor large = Tensor::empty({(1 << 16) + 1}, DType::boolean);  // rounded to pages, cached
            static_cast<volatile char*>(large.raw_data())[(1 << 16) + 1] = 1;
        },
        "AddressSanitizer");
    EXPECT_DEATH(
        {
            void* freed = nullptr;
            {
                Tensor large = Tensor::empty({1 << 16}, DType::boolean);
                freed = large.raw_data();
            }
            static_cast<volatile char*>(freed)[0] = 1;
        },
        "AddressSanitizer");
    GTEST_FLAG_SET(death_test_style, style);
    // What a request owns stays usable.
    Tensor large = Tensor::empty({(1 << 16) + 1}, DType::boolean);
    static_cast<volatile char*>(large.raw_data())[1 << 16] = 1;
#else
    GTEST_SKIP() << "needs an AddressSanitizer build (make test-sanitize)";
#endif
}

TEST_P(KernelsByDtype, MatmulEqualsNaiveLoopsForEveryTranspose) {
    const DType dtype = GetParam();
    const std::int64_t m = 7, n = 5, kk = 9;
    for (bool ta : {false, true}) {
        for (bool tb : {false, true}) {
            SCOPED_TRACE(std::to_string(ta) + std::to_string(tb));
            const Tensor a = Tensor::randn(ta ? k::Shape{kk, m} : k::Shape{m, kk}, dtype, Device::cpu, 1);
            const Tensor b = Tensor::randn(tb ? k::Shape{n, kk} : k::Shape{kk, n}, dtype, Device::cpu, 2);
            const Tensor c = k::matmul(a, b, ta, tb);
            EXPECT_EQ(c.shape(), (k::Shape{m, n}));
            expect_close(as_double(c), naive_matmul(as_double(a), as_double(b), m, n, kk, ta, tb), tolerance(dtype));
        }
    }
}

TEST_P(KernelsByDtype, LinearIsAddmmWithTransposedWeight) {
    const DType dtype = GetParam();
    const Tensor x = Tensor::randn({4, 6}, dtype, Device::cpu, 1);
    const Tensor w = Tensor::randn({3, 6}, dtype, Device::cpu, 2);
    const Tensor b = Tensor::randn({3}, dtype, Device::cpu, 3);
    std::vector<double> expected = naive_matmul(as_double(x), as_double(w), 4, 3, 6, false, true);
    const std::vector<double> bias = as_double(b);
    for (std::size_t i = 0; i < expected.size(); ++i) expected[i] += bias[i % 3];
    expect_close(as_double(k::linear(x, w, b)), expected, tolerance(dtype));
    expect_close(as_double(k::addmm(b, x, w, true)), expected, tolerance(dtype));
}

TEST_P(KernelsByDtype, SumRowsReluAndBackward) {
    const DType dtype = GetParam();
    const Tensor x = Tensor::randn({5, 4}, dtype, Device::cpu, 3);
    const std::vector<double> xv = as_double(x);
    std::vector<double> sums(4, 0.0), relu(20), back(20);
    const Tensor g = Tensor::randn({5, 4}, dtype, Device::cpu, 4);
    const std::vector<double> gv = as_double(g);
    for (std::size_t i = 0; i < 20; ++i) {
        sums[i % 4] += xv[i];
        relu[i] = xv[i] > 0 ? xv[i] : 0;
        back[i] = xv[i] > 0 ? gv[i] : 0;
    }
    expect_close(as_double(k::sum_rows(x)), sums, tolerance(dtype));
    EXPECT_EQ(as_double(k::relu(x)), relu);  // exact
    EXPECT_EQ(as_double(k::relu_backward(g, x)), back);
}

TEST_P(KernelsByDtype, RelationMasksInEveryMaskDtype) {
    const DType dtype = GetParam();
    const Tensor x = Tensor::from_vector<double>({6}, {-1.0, 0.0, 0.5, 1.0, 2.0, 0.5});
    const Tensor xd = dtype == DType::f64 ? x : Tensor::from_vector<float>({6}, {-1.0f, 0.0f, 0.5f, 1.0f, 2.0f, 0.5f});
    const struct {
        k::Relation op;
        std::vector<bool> expected;
    } cases[] = {
        {k::Relation::gt, {false, false, false, true, true, false}},
        {k::Relation::ge, {false, false, true, true, true, true}},
        {k::Relation::lt, {true, true, false, false, false, false}},
        {k::Relation::le, {true, true, true, false, false, true}},
        {k::Relation::eq, {false, false, true, false, false, true}},
        {k::Relation::ne, {true, true, false, true, true, false}},
    };
    for (const auto& c : cases) {
        const Tensor as_bool = k::relation_mask(xd, c.op, 0.5, DType::boolean);
        const Tensor as_float = k::relation_mask(xd, c.op, 0.5, DType::f32);
        const Tensor as_double = k::relation_mask(xd, c.op, 0.5, DType::f64);
        EXPECT_EQ(as_bool.dtype(), DType::boolean);
        const auto b = as_bool.to_vector<bool>();
        const auto f = as_float.to_vector<float>();
        const auto d = as_double.to_vector<double>();
        for (std::size_t i = 0; i < 6; ++i) {
            EXPECT_EQ(b[i], c.expected[i]);
            EXPECT_EQ(f[i], c.expected[i] ? 1.0f : 0.0f);
            EXPECT_EQ(d[i], c.expected[i] ? 1.0 : 0.0);
        }
    }
    EXPECT_THROW(k::relation_mask(xd, k::Relation::gt, 0.0, DType::i64), std::invalid_argument);
}

TEST_P(KernelsByDtype, MseLossBackwardAndSgd) {
    const DType dtype = GetParam();
    const Tensor p = Tensor::randn({3, 4}, dtype, Device::cpu, 5);
    const Tensor t = Tensor::randn({3, 4}, dtype, Device::cpu, 6);
    const auto pv = as_double(p), tv = as_double(t);
    double loss = 0;
    std::vector<double> grad(12), stepped(12);
    for (std::size_t i = 0; i < 12; ++i) {
        loss += (pv[i] - tv[i]) * (pv[i] - tv[i]) / 12.0;
        grad[i] = 2.0 * (pv[i] - tv[i]) / 12.0;
        stepped[i] = pv[i] - 0.1 * tv[i];
    }
    const Tensor l = k::mse_loss(p, t);
    EXPECT_EQ(l.dim(), 0);
    expect_close(as_double(l), {loss}, tolerance(dtype));
    expect_close(as_double(k::mse_loss_backward(p, t)), grad, tolerance(dtype));
    Tensor param = p.to(Device::cpu);
    k::sgd_step(param, t, 0.1);
    expect_close(as_double(param), stepped, tolerance(dtype));
}

INSTANTIATE_TEST_SUITE_P(FloatAndDouble, KernelsByDtype, ::testing::Values(DType::f32, DType::f64),
                         [](const auto& info) { return std::string(k::dtype_short_name(info.param)); });

TEST(Nonzero, OneDimensionalInOrder) {
    const Tensor x = Tensor::from_vector<float>({7}, {0, 1.5f, 0, -2, 0, 0, 3});
    const Tensor idx = k::nonzero(x);
    EXPECT_EQ(idx.shape(), (k::Shape{3, 1}));
    EXPECT_EQ(idx.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 3, 6}));
}

TEST(Nonzero, RowsOfCoordinatesLikeTorch) {
    // torch.nonzero(torch.tensor([[0,1,0],[1,0,1]])) == [[0,1],[1,0],[1,2]]
    const Tensor x = Tensor::from_vector<double>({2, 3}, {0, 1, 0, 1, 0, 1});
    const Tensor idx = k::nonzero(x);
    EXPECT_EQ(idx.shape(), (k::Shape{3, 2}));
    EXPECT_EQ(idx.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 1, 0, 1, 2}));
    const Tensor cube = Tensor::from_vector<std::int64_t>({2, 2, 2}, {0, 0, 0, 5, 7, 0, 0, 0});
    EXPECT_EQ(k::nonzero(cube).to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 1, 1, 0, 0}));
}

TEST(Nonzero, EmptyAllFalseAndAllTrue) {
    EXPECT_EQ(k::nonzero(Tensor::zeros({0}, DType::boolean)).shape(), (k::Shape{0, 1}));
    EXPECT_EQ(k::nonzero(Tensor::zeros({100}, DType::boolean)).shape(), (k::Shape{0, 1}));
    // All true, across the chunk edges (2048) and a last, partial 64-element word.
    const std::int64_t n = 5000 + 3;
    const Tensor all = k::gt(Tensor::zeros({n}, DType::f32), -1.0);
    const auto idx = k::nonzero(all).to_vector<std::int64_t>();
    ASSERT_EQ(static_cast<std::int64_t>(idx.size()), n);
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(idx[static_cast<std::size_t>(i)], i);
}

TEST(Nonzero, RandomMasksOfEveryDtypeMatchAScan) {
    std::mt19937 engine(3);
    std::bernoulli_distribution hit(0.3);
    const std::int64_t n = 10007;
    std::vector<double> dense(static_cast<std::size_t>(n));
    std::vector<std::int64_t> expected;
    for (std::int64_t i = 0; i < n; ++i) {
        dense[static_cast<std::size_t>(i)] = hit(engine) ? 1.0 + static_cast<double>(i % 3) : 0.0;
        if (dense[static_cast<std::size_t>(i)] != 0) expected.push_back(i);
    }
    const Tensor as_double = Tensor::from_vector<double>({n}, dense);
    for (DType mask_dtype : {DType::boolean, DType::f32, DType::f64}) {
        const Tensor mask = k::relation_mask(as_double, k::Relation::ne, 0.0, mask_dtype);
        EXPECT_EQ(k::nonzero(mask).to_vector<std::int64_t>(), expected) << k::dtype_name(mask_dtype);
    }
    EXPECT_EQ(k::nonzero(as_double).to_vector<std::int64_t>(), expected);
    std::vector<std::int64_t> ints(dense.begin(), dense.end());
    EXPECT_EQ(k::nonzero(Tensor::from_vector<std::int64_t>({n}, ints)).to_vector<std::int64_t>(), expected);
}

TEST(Nonzero, CoordinatesOfEveryRankMatchDivision) {
    // Ranks 2-4 go a row at a time; rank 5 divides. Sparse masks jump several rows at
    // once (or leave whole blocks empty), extents of 1 step a row at every hit, and rows
    // straddle the blocks of staged positions (65536 elements), each of which finds its
    // first row anew.
    const std::vector<k::Shape> shapes = {{3000, 7},         {7, 3000},      {1, 5000},       {5000, 1},
                                          {40, 1, 130},      {9, 11, 13, 17}, {3, 4, 5, 6, 7}, {3, 40000},
                                          {2, 300, 250},     {140000, 1},     {2, 2, 3, 20000}};
    for (const k::Shape& shape : shapes) {
        for (const double density : {0.00002, 0.001, 0.1, 0.5, 1.0}) {
            std::int64_t n = 1;
            for (const std::int64_t extent : shape) n *= extent;
            std::mt19937 engine(static_cast<unsigned>(n));
            std::bernoulli_distribution hit(density);
            std::vector<float> values(static_cast<std::size_t>(n));
            std::vector<std::int64_t> expected;
            for (std::int64_t flat = 0; flat < n; ++flat) {
                if (!hit(engine)) continue;
                values[static_cast<std::size_t>(flat)] = 1.0f;
                std::vector<std::int64_t> coordinates(shape.size());
                std::int64_t rest = flat;
                for (std::size_t d = shape.size(); d-- > 0;) {
                    coordinates[d] = rest % shape[d];
                    rest /= shape[d];
                }
                expected.insert(expected.end(), coordinates.begin(), coordinates.end());
            }
            const Tensor idx = k::nonzero(Tensor::from_vector<float>(shape, values));
            ASSERT_EQ(idx.size(1), static_cast<std::int64_t>(shape.size()));
            EXPECT_EQ(idx.to_vector<std::int64_t>(), expected) << "rank " << shape.size() << " at " << density;
        }
    }
}

TEST(Nonzero, ZeroDimensionalAndEmptyShapes) {
    // torch.nonzero(torch.tensor(5.)).shape == (1, 0); torch.nonzero(torch.tensor(0.)).shape == (0, 0)
    EXPECT_EQ(k::nonzero(Tensor::from_vector<float>({}, {5.0f})).shape(), (k::Shape{1, 0}));
    EXPECT_EQ(k::nonzero(Tensor::from_vector<float>({}, {0.0f})).shape(), (k::Shape{0, 0}));
    for (const k::Shape& shape : {k::Shape{0, 3}, k::Shape{3, 0}, k::Shape{2, 0, 4}}) {
        const Tensor idx = k::nonzero(Tensor::zeros(shape, DType::boolean));
        EXPECT_EQ(idx.shape(), (k::Shape{0, static_cast<std::int64_t>(shape.size())}));
    }
}

TEST(MaskedSelect, KeepsTheSelectedValuesInOrder) {
    const Tensor x = Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
    const Tensor mask = Tensor::from_vector<bool>({2, 3}, {true, false, true, false, false, true});
    EXPECT_EQ(k::masked_select(x, mask).to_vector<float>(), (std::vector<float>{1, 3, 6}));
    EXPECT_EQ(k::masked_select(x, k::gt(x, 10.0)).numel(), 0);
}

TEST(MaskedSelect, AFirstBlockUnlikeTheRestSelectsTheSameValues) {
    // The first block of 65536 elements decides whether the others are staged or only
    // counted: a dense first block over sparse ones (counted, then compressed) and a
    // sparse one over dense ones (staged, then compressed or gathered by the total).
    const std::int64_t n = 3 * 65536 + 501;
    const Tensor x = Tensor::randn({n}, DType::f32, Device::cpu, 11);
    const std::vector<double> all = values<float>(x);
    for (const bool dense_first : {true, false}) {
        std::vector<bool> hit(all.size());
        std::vector<double> expected;
        for (std::size_t i = 0; i < all.size(); ++i) {
            const bool in_first = i < 65536;
            hit[i] = all[i] > (in_first == dense_first ? -1.0 : 1.5);  // about 84% or 7% hits
            if (hit[i]) expected.push_back(all[i]);
        }
        const Tensor mask = Tensor::from_vector<bool>({n}, hit);
        EXPECT_EQ(values<float>(k::masked_select(x, mask)), expected) << (dense_first ? "dense first" : "sparse first");
    }
}

TEST(MaskedSelect, EveryDensityValueAndMaskDtypeAcrossBlocks) {
    // Two blocks of staged positions and a partial one; sparse masks (a gather at the
    // staged positions) and dense ones (a compress of the values).
    const std::int64_t n = 2 * 65536 + 77;
    for (DType value_dtype : {DType::f32, DType::f64}) {
        const Tensor x = Tensor::randn({n}, value_dtype, Device::cpu, 5);
        const auto as_doubles = [&](const Tensor& t) { return value_dtype == DType::f32 ? values<float>(t) : values<double>(t); };
        const std::vector<double> all = as_doubles(x);
        for (const double threshold : {2.0, 1.5, 0.3, -2.0}) {  // about 2%, 7%, 38%, 98% hits
            std::vector<double> expected;
            for (const double v : all) {
                if (v > threshold) expected.push_back(v);
            }
            std::vector<Tensor> masks;
            for (DType mask_dtype : {DType::boolean, DType::f32, DType::f64}) masks.push_back(k::gt(x, threshold, mask_dtype));
            std::vector<std::int64_t> as_int64(all.size());
            for (std::size_t i = 0; i < all.size(); ++i) as_int64[i] = all[i] > threshold ? -3 : 0;
            masks.push_back(Tensor::from_vector<std::int64_t>({n}, as_int64));
            for (const Tensor& mask : masks) {
                const Tensor selected = k::masked_select(x, mask);
                ASSERT_EQ(selected.numel(), static_cast<std::int64_t>(expected.size()));
                EXPECT_EQ(as_doubles(selected), expected)
                    << k::dtype_name(value_dtype) << " by " << k::dtype_name(mask.dtype()) << " mask, x > " << threshold;
            }
        }
    }
}

TEST(Nonzero, TwoIntraOpThreadsWriteWhatOneWrites) {
#if defined(VITALS_TEST_TSAN)
    GTEST_SKIP() << VITALS_TSAN_SKIPS_OPENMP;
#endif
    // Enough blocks of 65536 elements to share between threads; rows that straddle the
    // blocks (a thread's first block starts inside a row), and masked_select's gather
    // (sparse) and compress (dense) a block at a time.
    const auto on_threads = [](int threads, auto&& op) {
        const vitals::ThreadCountScope scope(threads);
        return op();
    };
    for (const k::Shape& shape : {k::Shape{600001}, k::Shape{3, 100003}, k::Shape{7, 5, 11, 1009}}) {
        for (const double threshold : {1.5, 0.0, -3.0}) {  // about 7%, 50%, all hits
            const Tensor x = Tensor::randn(shape, DType::f32, Device::cpu, 9);
            const Tensor mask = k::gt(x, threshold);
            const auto nonzero_of = [&] { return k::nonzero(mask).to_vector<std::int64_t>(); };
            const std::vector<std::int64_t> one = on_threads(1, nonzero_of);
            EXPECT_EQ(on_threads(2, nonzero_of), one) << "rank " << shape.size() << ", x > " << threshold;
            const auto selected_of = [&] { return values<float>(k::masked_select(x, mask)); };
            const std::vector<double> selected = on_threads(1, selected_of);
            EXPECT_EQ(on_threads(2, selected_of), selected) << "masked_select, rank " << shape.size() << ", x > " << threshold;
            std::int64_t hits = 0;
            for (const double v : values<float>(x)) hits += v > threshold;
            EXPECT_EQ(static_cast<std::int64_t>(one.size()), hits * static_cast<std::int64_t>(shape.size()));
            EXPECT_EQ(static_cast<std::int64_t>(selected.size()), hits);
        }
    }
}

TEST(Kernels, BadInputIsAClearError) {
    const Tensor a = Tensor::zeros({2, 3}, DType::f32);
    const Tensor b = Tensor::zeros({4, 2}, DType::f32);
    const Tensor d = Tensor::zeros({3, 2}, DType::f64);
    const auto message = [](auto&& f) {
        try {
            f();
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message([&] { k::matmul(a, b); }),
              "matmul: inner dimensions differ: float[2, 3] cpu @ float[4, 2] cpu (3 vs 4)");
    EXPECT_NE(message([&] { k::matmul(a, d); }).find("dtypes differ"), std::string::npos);
    EXPECT_NE(message([&] { k::relu_backward(a, b); }).find("shapes differ"), std::string::npos);
    EXPECT_NE(message([&] { k::linear(a, b, Tensor::zeros({4}, DType::f32)); }).find("expects 2"), std::string::npos);
    EXPECT_NE(message([&] { k::addmm(Tensor::zeros({5}, DType::f32), a, Tensor::zeros({3, 2}, DType::f32)); })
                  .find("bias must have shape [2]"),
              std::string::npos);
    EXPECT_NE(message([&] { k::relu(Tensor::zeros({2}, DType::i64)); }).find("must be float or double"), std::string::npos);
    EXPECT_NE(message([&] { k::matmul(Tensor(), a); }).find("undefined"), std::string::npos);
    Tensor p = Tensor::zeros({2}, DType::f32);
    EXPECT_NE(message([&] { k::sgd_step(p, Tensor::zeros({2}, DType::f32), std::nan("")); }).find("finite"),
              std::string::npos);
}

TEST(OpHooks, EveryOperationPassesTheEntryPointWithItsInputs) {
    struct Seen {
        std::string name;
        std::vector<k::Shape> shapes;
        int depth;
    };
    static std::vector<Seen> seen;
    static int depth = 0;
    seen.clear();
    static const k::OpObserver observer{
        [](const char* name, std::span<const Tensor* const> inputs) -> void* {
            Seen s{name, {}, depth++};
            for (const Tensor* t : inputs) s.shapes.push_back(t->shape());
            seen.push_back(s);
            return nullptr;
        },
        [](void*) { --depth; },
    };
    k::set_op_observer(&observer);
    const Tensor x = Tensor::zeros({32, 512}, DType::f32);
    const Tensor w = Tensor::zeros({1024, 512}, DType::f32);
    const Tensor b = Tensor::zeros({1024}, DType::f32);
    k::relu(k::linear(x, w, b));
    k::set_op_observer(nullptr);
    ASSERT_EQ(seen.size(), 3u);
    EXPECT_EQ(seen[0].name, "linear");
    EXPECT_EQ(seen[0].shapes, (std::vector<k::Shape>{{32, 512}, {1024, 512}, {1024}}));
    EXPECT_EQ(seen[1].name, "addmm");
    EXPECT_EQ(seen[1].depth, 1);  // inside linear
    EXPECT_EQ(seen[2].name, "relu");
    EXPECT_EQ(seen[2].depth, 0);
    EXPECT_EQ(depth, 0);
}

// Shapes whose element count or byte size overflows are refused by name; a moved-from
// tensor is undefined and ops say so (before, {1 << 62, 4} wrapped to 0 elements and an
// op crashed, and a moved-from tensor still claimed to be defined).
TEST(Tensor, OverflowingShapesAndMovedFromTensorsAreRefused) {
    try {
        (void)Tensor::empty({std::int64_t{1} << 62, 4}, DType::f32);
        FAIL() << "an overflowing shape was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("[4611686018427387904, 4]"), std::string::npos) << e.what();
    }
    EXPECT_THROW((void)Tensor::empty({std::int64_t{1} << 61, 1}, DType::f64), std::invalid_argument);  // 2^64 bytes
    Tensor a = Tensor::randn({4, 4}, DType::f32);
    Tensor b = std::move(a);
    EXPECT_TRUE(b.defined());
    EXPECT_FALSE(a.defined());  // NOLINT(bugprone-use-after-move): the point of the test
    try {
        (void)k::relu(a);
        FAIL() << "relu of a moved-from tensor ran";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("undefined tensor"), std::string::npos) << e.what();
    }
    Tensor c;
    c = std::move(b);
    EXPECT_TRUE(c.defined());
    EXPECT_FALSE(b.defined());  // NOLINT(bugprone-use-after-move)
    EXPECT_EQ(k::relu(c).numel(), 16);
}
