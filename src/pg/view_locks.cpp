#include "pg/view_locks.hpp"

#include "pg/boundary.hpp"

#include <map>
#include <set>

namespace ivm::pg::view_locks {
namespace {

// objsubid of ivm's locks in pg_locks (user advisory locks use 1 and 2)
constexpr uint16 writers_lock = 18774;  // 'IV'
constexpr uint16 key_lock = 18775;

// How this transaction has written each view so far.
struct Held {
    std::optional<std::size_t> shared_base;  // by row, as a writer of this base table
    bool alone = false;
    bool keys = false;  // holds row key locks
};
std::map<int32, Held> held;
std::size_t keys_taken = 0;  // key locks this transaction holds
// Views this session writes alone (see lock_writers).
std::set<int32> alone_from_now;

LOCKTAG tag(int32 view_id, uint32 object, uint16 kind) {
    LOCKTAG t;
    SET_LOCKTAG_ADVISORY(t, MyDatabaseId, static_cast<uint32>(view_id), object, kind);
    return t;
}

// Lock object of the whole view (0) and of base table b (b + 1).
void lock(int32 view_id, uint32 object, LOCKMODE mode) {
    const LOCKTAG t = tag(view_id, object, writers_lock);
    call([&] { (void)LockAcquire(&t, mode, false, false); });
}

}  // namespace

bool lock_writers(int32 view_id, std::size_t bases, std::optional<std::size_t> shared_base) {
    Held& h = held[view_id];
    // (locks taken again where held: a subtransaction's abort released them)
    if (h.alone || alone_from_now.count(view_id) != 0) shared_base.reset();
    if (h.shared_base && h.shared_base != shared_base) alone_from_now.insert(view_id);
    if (!shared_base) {
        lock(view_id, 0, ExclusiveLock);
        h.alone = true;
        return true;
    }
    lock(view_id, 0, RowExclusiveLock);
    for (std::size_t b = 0; b < bases; ++b)
        lock(view_id, static_cast<uint32>(b + 1), b == *shared_base ? RowExclusiveLock : ShareLock);
    h.shared_base = shared_base;
    return false;
}

bool lock_keys(int32 view_id, const std::vector<uint64>& keys) {
    // Half the transaction's average share of the lock table (32 keys by
    // default): the rest stays for tables, indexes and other views.
    const std::size_t budget = static_cast<std::size_t>(std::max(32, max_locks_per_xact / 2));
    if (keys_taken + keys.size() > budget) return false;
    for (uint64 key : keys) {
        const LOCKTAG t = tag(view_id, static_cast<uint32>(key ^ (key >> 32)), key_lock);
        const LockAcquireResult r = call([&] { return LockAcquire(&t, ExclusiveLock, false, false); });
        if (r == LOCKACQUIRE_OK) ++keys_taken;
    }
    held[view_id].keys = true;
    return true;
}

void writing_whole(int32 view_id) {
    Held& h = held[view_id];
    if (h.keys) alone_from_now.insert(view_id);
}

void end_transaction() {
    held.clear();
    keys_taken = 0;
}

}  // namespace ivm::pg::view_locks
