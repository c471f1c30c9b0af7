// Which sanitizer a test program was built with, for the tests that behave differently
// under one (GCC defines __SANITIZE_ADDRESS__, clang answers __has_feature).
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define VITALS_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VITALS_TEST_ASAN 1
#endif
#endif

#if defined(__SANITIZE_THREAD__)
#define VITALS_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define VITALS_TEST_TSAN 1
#endif
#endif

// Why a test that starts OpenMP threads skips under ThreadSanitizer.
#define VITALS_TSAN_SKIPS_OPENMP \
    "libgomp is not instrumented, so ThreadSanitizer cannot see its barriers; the other builds run this"
