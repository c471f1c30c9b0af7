// Libraries opened when first needed: the messages a missing library or symbol gives.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "vitals/shared_library.hpp"

using vitals::SharedLibrary;

TEST(SharedLibrary, AMissingLibrarySaysWhichNamesWereTriedAndWhy) {
    const SharedLibrary missing({"libvitals-no-such-library.so.7", "libvitals-nor-this.so"});
    EXPECT_FALSE(missing.loaded());
    EXPECT_EQ(missing.name(), "");
    EXPECT_NE(missing.why_not().find("libvitals-no-such-library.so.7: cannot open shared object file"), std::string::npos)
        << missing.why_not();
    EXPECT_NE(missing.why_not().find("; libvitals-nor-this.so"), std::string::npos) << missing.why_not();
    try {
        (void)missing.symbol("anything");
        FAIL() << "a symbol of a library that did not open";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot use anything: libvitals-no-such-library.so.7"), std::string::npos)
            << e.what();
    }
}

// zlib is on every machine vitals builds on (the profiler writes gzipped traces).
TEST(SharedLibrary, TheFirstNameThatOpensIsKeptAndItsFunctionsCalled) {
    const SharedLibrary zlib({"libvitals-no-such-library.so.7", "libz.so.1"});
    ASSERT_TRUE(zlib.loaded()) << zlib.why_not();
    EXPECT_EQ(zlib.name(), "libz.so.1");
    EXPECT_EQ(zlib.why_not(), "");
    const auto version = zlib.function<const char*()>("zlibVersion");
    EXPECT_EQ(std::string(version()).substr(0, 2), "1.");
    const char* (*bound)() = nullptr;
    zlib.bind(bound, "zlibVersion");
    EXPECT_EQ(bound, version);
    try {
        (void)zlib.symbol("vitals_no_such_function");
        FAIL() << "a symbol zlib does not have";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("libz.so.1 has no vitals_no_such_function"), std::string::npos) << e.what();
    }
}

TEST(SharedLibrary, ExistenceIsAskedWithoutKeepingTheLibrary) {
    std::string why;
    EXPECT_TRUE(vitals::shared_library_exists("libz.so.1", &why));
    EXPECT_FALSE(vitals::shared_library_exists("libvitals-no-such-library.so.7", &why));
    EXPECT_NE(why.find("libvitals-no-such-library.so.7"), std::string::npos) << why;
}
