#include "core/backward_forward.hpp"

#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace ivm::backward_forward {
namespace {

enum class Status : unsigned char { Open, Proved, Gone };

struct OutOfBudget {
    Stop why;
};

class Run {
public:
    Run(Derivations& d, const Budget& budget) : d_(d), budget_(budget) {}

    // In waves: the tuples queued are checked (their premises asked for
    // together first), then what those found gone derive is queued (asked
    // for together).  The order decides nothing: a tuple is proved by a
    // chain, or found gone with all it met, from what is known so far.
    void forward(const std::vector<TupleId>& seeds) {
        for (TupleId s : seeds) enqueue(s);
        while (!to_check_.empty()) {
            std::vector<TupleId> wave;
            for (TupleId t : to_check_)
                if (status(t) == Status::Open) wave.push_back(t);
            to_check_.clear();
            d_.prefetch_premises(wave);
            for (TupleId t : wave)
                if (status(t) == Status::Open) check(t);
            std::vector<TupleId> gone;
            gone.swap(gone_unexpanded_);
            if (gone.empty()) continue;
            lookups_ += gone.size() - 1;  // (a lookup each, counted() adds the last)
            for (TupleId c : counted(d_.consequences_of(gone))) enqueue(c);
        }
    }

    Outcome outcome() {
        Outcome o;
        o.finished = true;
        o.gone = std::move(gone_);
        o.checked = checked_;
        o.lookups = lookups_;
        return o;
    }
    std::uint64_t lookups() const { return lookups_; }
    std::uint64_t checked() const { return checked_; }
    std::uint64_t found_gone() const { return gone_.size(); }

private:
    Status status(TupleId t) {
        auto it = status_.find(t);
        if (it != status_.end()) return it->second;
        if (!d_.unaffected(t)) return Status::Open;
        status_.emplace(t, Status::Proved);
        return Status::Proved;
    }

    void enqueue(TupleId t) {
        if (status(t) != Status::Open || !queued_.insert(t).second) return;
        to_check_.push_back(t);
    }

    template <typename T>
    T counted(T result) {
        if (++lookups_ > budget_.lookups) throw OutOfBudget{Stop::Lookups};
        if (std::chrono::steady_clock::now() > budget_.deadline) throw OutOfBudget{Stop::Time};
        return result;
    }

    // Backward: a depth-first walk over premises from `t`.  `children[i]`
    // are the walk's tuples that region[i] is a premise of: a proof of
    // region[i] proves them too.
    void check(TupleId t) {
        std::vector<TupleId> region{t};
        std::vector<std::vector<std::size_t>> children(1);
        std::unordered_map<TupleId, std::size_t> index{{t, 0}};
        std::vector<std::size_t> walk{0};
        auto prove = [&](std::size_t first) {
            std::vector<std::size_t> stack{first};
            while (!stack.empty()) {
                const std::size_t i = stack.back();
                stack.pop_back();
                if (status(region[i]) == Status::Proved) continue;
                status_[region[i]] = Status::Proved;
                for (std::size_t c : children[i]) stack.push_back(c);
            }
        };
        while (!walk.empty()) {
            const std::size_t i = walk.back();
            walk.pop_back();
            const TupleId u = region[i];
            if (status(u) == Status::Proved) continue;
            if (++checked_ == Budget::most_go_checks && budget_.stop_when_most_go && gone_.size() > Budget::most_go_gone)
                throw OutOfBudget{Stop::MostGo};
            const Premises premises = counted(d_.premises(u));
            if (premises.root) {
                prove(i);
            } else {
                for (TupleId p : premises.tuples) {
                    const Status s = status(p);
                    if (s == Status::Gone) continue;
                    if (s == Status::Proved) {
                        prove(i);
                        break;
                    }
                    auto [it, added] = index.emplace(p, region.size());
                    if (added) {
                        region.push_back(p);
                        children.emplace_back();
                        walk.push_back(it->second);
                    }
                    children[it->second].push_back(i);
                }
            }
            if (status(t) == Status::Proved) return;  // the rest of the walk stays open
        }
        // The walk ran out without a proof of t: what it met is closed under
        // premises, and what of it is not proved has no chain from a root.
        for (TupleId u : region) {
            if (status(u) != Status::Open) continue;
            status_[u] = Status::Gone;
            gone_.push_back(u);
            gone_unexpanded_.push_back(u);
        }
    }

    Derivations& d_;
    Budget budget_;
    std::uint64_t lookups_ = 0;
    std::uint64_t checked_ = 0;
    std::unordered_map<TupleId, Status> status_;
    std::unordered_set<TupleId> queued_;
    std::vector<TupleId> to_check_;
    std::vector<TupleId> gone_;
    std::vector<TupleId> gone_unexpanded_;
};

}  // namespace

Outcome run(Derivations& derivations, const std::vector<TupleId>& seeds, const Budget& budget) {
    Run r(derivations, budget);
    try {
        r.forward(seeds);
    } catch (const OutOfBudget& out) {
        Outcome o;
        o.checked = r.checked();
        o.lookups = r.lookups();
        o.stopped = out.why;
        o.found_gone = r.found_gone();
        return o;
    }
    return r.outcome();
}

}  // namespace ivm::backward_forward
