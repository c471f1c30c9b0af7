// Interleaved A/B: the statistics on synthetic rounds with hand-computed answers, and the
// driver's order, thread counts and refusals (no timing is asserted).
#include <gtest/gtest.h>
#include <omp.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include "vitals/ab.hpp"

using vitals::AbAlternative;
using vitals::AbRound;
using vitals::stats::Verdict;

namespace {

// Rounds where the first alternative takes 1 s per call and the second `ratios[r]`.
std::vector<AbRound> rounds_with_ratios(const std::vector<double>& ratios) {
    std::vector<AbRound> rounds;
    for (std::size_t r = 0; r < ratios.size(); ++r) rounds.push_back({{1.0, ratios[r]}, r % 2 == 1});
    return rounds;
}

}  // namespace

TEST(AbRounds, RatioIntervalSignTestAndVerdict) {
    // Ten rounds, every ratio above 1, in no order: median 1.055; with n = 10 the 95%
    // interval is the 2nd to the 9th smallest (P(X <= 1) = 11/1024 per tail): [1.02, 1.09];
    // the sign test gives 2 / 1024.
    const auto rounds = rounds_with_ratios({1.04, 1.10, 1.01, 1.07, 1.05, 1.09, 1.02, 1.06, 1.08, 1.03});
    const std::vector<AbAlternative> a = vitals::summarize_rounds(rounds, {1, 1}, 0.05, 0.01);
    ASSERT_EQ(a.size(), 2u);
    EXPECT_DOUBLE_EQ(a[0].ratio, 1.0);
    EXPECT_EQ(a[0].verdict, Verdict::same);
    EXPECT_DOUBLE_EQ(a[0].median, 1.0);
    EXPECT_NEAR(a[1].ratio, 1.055, 1e-12);
    EXPECT_NEAR(a[1].median, 1.055, 1e-12);
    ASSERT_TRUE(a[1].ratio_interval);
    EXPECT_DOUBLE_EQ(a[1].ratio_interval->first, 1.02);
    EXPECT_DOUBLE_EQ(a[1].ratio_interval->second, 1.09);
    EXPECT_DOUBLE_EQ(a[1].p_value, 2.0 / 1024.0);
    EXPECT_EQ(a[1].verdict, Verdict::slower);
}

TEST(AbRounds, PerCallTimesUseEachAlternativesBlockSize) {
    // The first alternative's blocks hold 4 calls (4 s: 1 s per call), the second's 2
    // (1 s: 0.5 s per call): a ratio of 0.5, faster.
    std::vector<AbRound> rounds(8, AbRound{{4.0, 1.0}, false});
    const std::vector<AbAlternative> a = vitals::summarize_rounds(rounds, {4, 2}, 0.05, 0.01);
    EXPECT_DOUBLE_EQ(a[0].median, 1.0);
    EXPECT_DOUBLE_EQ(a[1].median, 0.5);
    EXPECT_DOUBLE_EQ(a[1].ratio, 0.5);
    EXPECT_DOUBLE_EQ(a[1].p_value, 2.0 / 256.0);
    EXPECT_EQ(a[1].verdict, Verdict::faster);
    EXPECT_EQ(a[1].number_per_block, 2);
}

TEST(AbRounds, SameWhenNotSignificantOrUnderTheNoiseFloor) {
    // Half above, half below: p = 1.
    const auto mixed = vitals::summarize_rounds(rounds_with_ratios({0.98, 1.02, 0.99, 1.01, 0.97, 1.03}), {1, 1}, 0.05, 0.01);
    EXPECT_DOUBLE_EQ(mixed[1].p_value, 1.0);
    EXPECT_EQ(mixed[1].verdict, Verdict::same);
    // Every round 0.5% slower: significant (2 / 2^12), but under a 1% noise floor.
    const auto small = vitals::summarize_rounds(rounds_with_ratios(std::vector<double>(12, 1.005)), {1, 1}, 0.05, 0.01);
    EXPECT_DOUBLE_EQ(small[1].p_value, 2.0 / 4096.0);
    EXPECT_EQ(small[1].verdict, Verdict::same);
    // The same rounds with no noise floor: slower.
    EXPECT_EQ(vitals::summarize_rounds(rounds_with_ratios(std::vector<double>(12, 1.005)), {1, 1}, 0.05, 0.0)[1].verdict,
              Verdict::slower);
    // Five rounds: no 95% interval yet, and the sign test cannot reach 0.05 (2/32).
    const auto few = vitals::summarize_rounds(rounds_with_ratios({2, 2, 2, 2, 2}), {1, 1}, 0.05, 0.01);
    EXPECT_FALSE(few[1].ratio_interval);
    EXPECT_DOUBLE_EQ(few[1].p_value, 0.0625);
    EXPECT_EQ(few[1].verdict, Verdict::same);
}

TEST(AbRounds, PrecisionNeedsEveryIntervalWithinItsRatio) {
    std::vector<AbAlternative> a(3);
    a[1].ratio = 2.0;
    a[1].ratio_interval = std::pair{1.99, 2.01};  // +-0.5%
    a[2].ratio = 1.0;
    a[2].ratio_interval = std::pair{0.98, 1.005};  // -2%
    EXPECT_FALSE(vitals::ab_precise_enough(a, 0.01));
    EXPECT_TRUE(vitals::ab_precise_enough(a, 0.025));
    a[2].ratio_interval.reset();
    EXPECT_FALSE(vitals::ab_precise_enough(a, 0.5));
}

TEST(AbRounds, ARoundWithTheWrongBlockCountIsRefused) {
    std::vector<AbRound> rounds{{{1.0, 1.0, 1.0}, false}};
    EXPECT_THROW(vitals::summarize_rounds(rounds, {1, 1}, 0.05, 0.01), std::invalid_argument);
}

TEST(Ab, RoundsAlternateTheOrderAndEachStatementGetsItsThreadCount) {
    std::string setups;
    int wrong_threads = 0;
    vitals::Timer a({.stmt = [&] { wrong_threads += omp_get_max_threads() != 1; }, .setup = [&] { setups += 'A'; }});
    vitals::Timer b({.stmt = [&] { wrong_threads += omp_get_max_threads() != 2; },
                     .setup = [&] { setups += 'B'; },
                     .num_threads = 2});
    std::vector<std::string> last_two;
    const vitals::AbResult r = vitals::ab({a, b}, {.max_run_time = 60, .block_time = 1e-4, .on_round = [&](std::size_t rounds, double) {
                                               last_two.push_back(setups.substr(setups.size() - 2));
                                               return rounds < 4;
                                           }});
    EXPECT_EQ(r.stopped_by, vitals::AbStop::interrupted);
    ASSERT_EQ(r.rounds.size(), 4u);
    EXPECT_EQ(last_two, (std::vector<std::string>{"AB", "BA", "AB", "BA"}));
    EXPECT_FALSE(r.rounds[0].reversed);
    EXPECT_TRUE(r.rounds[1].reversed);
    EXPECT_EQ(wrong_threads, 0);
    ASSERT_EQ(r.alternatives.size(), 2u);
    EXPECT_GE(r.alternatives[1].number_per_block, 1);
    for (const AbRound& round : r.rounds) {
        EXPECT_GT(round.block_seconds[0], 0.0);
        EXPECT_GT(round.block_seconds[1], 0.0);
    }
}

TEST(Ab, RefusesFewerThanTwoTimersOrOneTwice) {
    vitals::Timer a({.stmt = [] {}});
    try {
        vitals::ab({a});
        FAIL() << "one Timer was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("two Timers or more"), std::string::npos) << e.what();
    }
    try {
        vitals::ab({a, a});
        FAIL() << "a Timer given twice was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("Timer 2 is Timer 1 again"), std::string::npos) << e.what();
    }
    vitals::Timer b({.stmt = [] {}});
    EXPECT_THROW(vitals::ab({a, b}, {.precision = 0}), std::invalid_argument);
    EXPECT_THROW(vitals::ab({a, b}, {.max_run_time = -1}), std::invalid_argument);
}

TEST(Ab, TheTimeLimitDoesNotStopTheRoundsBeforeMinRounds) {
    // Each call sleeps past the whole time limit, so the limit alone allows one round.
    const auto sleep_past_the_limit = [] { std::this_thread::sleep_for(std::chrono::milliseconds(2)); };
    vitals::Timer a({.stmt = sleep_past_the_limit}), b({.stmt = sleep_past_the_limit});
    const vitals::AbResult limited = vitals::ab({a, b}, {.max_run_time = 0.001, .min_run_time = 0, .block_time = 0.001});
    EXPECT_EQ(limited.rounds.size(), 1u);
    EXPECT_EQ(limited.stopped_by, vitals::AbStop::max_run_time);
    const vitals::AbResult counted =
        vitals::ab({a, b}, {.max_run_time = 0.001, .min_run_time = 0, .block_time = 0.001, .min_rounds = 7});
    EXPECT_EQ(counted.rounds.size(), 7u);
    ASSERT_EQ(counted.alternatives.size(), 2u);
    EXPECT_TRUE(counted.alternatives[1].ratio_interval.has_value()) << "7 rounds give an interval";
}

TEST(Ab, RefusesABlockLongerThanTheTimeLimitAndMinRoundsOutOfRange) {
    vitals::Timer a({.stmt = [] {}}), b({.stmt = [] {}});
    try {
        vitals::ab({a, b}, {.max_run_time = 1, .block_time = 1e6});
        FAIL() << "a block longer than the time limit was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("longer than max_run_time"), std::string::npos) << e.what();
    }
    EXPECT_THROW(vitals::ab({a, b}, {.min_rounds = 0}), std::invalid_argument);
    EXPECT_THROW(vitals::ab({a, b}, {.min_rounds = 2'000'000}), std::invalid_argument);
}

// An alternative that throws after 3 rounds: AbFailed names it, and holds those 3 rounds,
// stopped by the failure, every verdict untested.
TEST(Ab, AnAlternativeThatThrowsIsNamedAndTheRoundsBeforeItKept) {
    bool explode = false;
    vitals::Timer a({.stmt = [] {}}), b({.stmt = [&] {
                                           if (explode) throw std::runtime_error("broke");
                                       },
                                       .label = "boom"});
    try {
        vitals::ab({a, b}, {.max_run_time = 60, .block_time = 1e-4, .on_round = [&](std::size_t rounds, double) {
                                explode = rounds >= 3;
                                return true;
                            }});
        FAIL() << "the throw was lost";
    } catch (const vitals::AbFailed& e) {
        EXPECT_EQ(std::string(e.what()), "ab: alternative 2 ('boom') threw: broke");
        const vitals::AbResult& r = e.partial;
        EXPECT_EQ(r.stopped_by, vitals::AbStop::failed);
        EXPECT_EQ(r.rounds.size(), 3u);
        ASSERT_TRUE(r.failure.has_value());
        EXPECT_EQ(r.failure->alternative, 1u);
        EXPECT_EQ(r.failure->message, "broke");
        ASSERT_EQ(r.alternatives.size(), 2u);
        EXPECT_EQ(r.alternatives[1].verdict, Verdict::untested);
        EXPECT_GT(r.alternatives[1].median, 0.0);
    }
}
