// The names a view's columns are stored and shown under (tuples::stored_name,
// tuples::shown_name): a user's name never meets one of ivm's.
#include <gtest/gtest.h>

#include "core/tuples.hpp"

namespace {

using ivm::tuples::shown_name;
using ivm::tuples::stored_name;

TEST(Names, AUserNameLikeIvmsIsStoredApart) {
    EXPECT_EQ(stored_name("__ivm_count"), "__ivm_u___ivm_count");
    EXPECT_EQ(stored_name("__ivm_u_x"), "__ivm_u___ivm_u_x");  // no two user names meet either
    EXPECT_EQ(stored_name("amount"), "amount");
    EXPECT_EQ(stored_name("_ivm_count"), "_ivm_count");
}

TEST(Names, AStoredNameShowsTheUsers) {
    for (const char* name : {"__ivm_count", "__ivm_u_x", "amount", "__ivm_"})
        EXPECT_EQ(shown_name(stored_name(name)), name);
    // quoted as quote_identifier writes it
    EXPECT_EQ(shown_name("\"__ivm_u___ivm_Count\""), "\"__ivm_Count\"");
    EXPECT_EQ(shown_name("\"Amount\""), "\"Amount\"");
    // ivm's own names are shown as they are
    EXPECT_EQ(shown_name("__ivm_count"), "__ivm_count");
}

}  // namespace
