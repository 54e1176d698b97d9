#include "core/triggers.hpp"

namespace ivm::triggers {
namespace {

struct AfterTrigger {
    const char* suffix;
    const char* event;
    const char* referencing;
};

constexpr AfterTrigger after_triggers[] = {
    {"insert", "INSERT", " REFERENCING NEW TABLE AS ivm_new"},
    {"update", "UPDATE", " REFERENCING OLD TABLE AS ivm_old NEW TABLE AS ivm_new"},
    {"delete", "DELETE", " REFERENCING OLD TABLE AS ivm_old"},
    {"truncate", "TRUNCATE", ""},
};

std::string trigger_name(int view_id, const char* suffix, Part part) {
    return "ivm_" + std::to_string(view_id) + "_" + suffix + (part == Part::Recursive ? "_rec" : "");
}

}  // namespace

std::vector<std::string> base_table_ddl(int view_id, const std::string& base, Part part) {
    const std::string arg = "('" + std::to_string(view_id) + (part == Part::Recursive ? "', 'rec')" : "')");
    std::vector<std::string> ddl{"CREATE TRIGGER " + trigger_name(view_id, "before", part) +
                                 " BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON " + base +
                                 " FOR EACH STATEMENT EXECUTE FUNCTION ivm.before_base_change" + arg};
    for (const AfterTrigger& t : after_triggers)
        ddl.push_back("CREATE TRIGGER " + trigger_name(view_id, t.suffix, part) + " AFTER " + t.event +
                      " ON " + base + t.referencing +
                      " FOR EACH STATEMENT EXECUTE FUNCTION ivm.after_base_change" + arg);
    return ddl;
}

std::string before_trigger_name(int view_id, Part part) { return trigger_name(view_id, "before", part); }

bool is_base_trigger_name(const std::string& name) {
    const std::string prefix = "ivm_";
    if (name.rfind(prefix, 0) != 0) return false;
    std::size_t i = prefix.size(), digits = 0;
    while (i < name.size() && name[i] >= '0' && name[i] <= '9') ++i, ++digits;
    if (digits == 0 || digits > 9 || i >= name.size() || name[i] != '_') return false;
    const int view_id = std::stoi(name.substr(prefix.size(), digits));
    for (Part part : {Part::Counting, Part::Recursive}) {
        if (name == before_trigger_name(view_id, part)) return true;
        for (const AfterTrigger& t : after_triggers)
            if (name == trigger_name(view_id, t.suffix, part)) return true;
    }
    return false;
}

std::vector<std::string> base_table_drop(int view_id, const std::string& base, Part part) {
    std::vector<std::string> ddl{"DROP TRIGGER IF EXISTS " + trigger_name(view_id, "before", part) + " ON " + base};
    for (const AfterTrigger& t : after_triggers)
        ddl.push_back("DROP TRIGGER IF EXISTS " + trigger_name(view_id, t.suffix, part) + " ON " + base);
    return ddl;
}

namespace {
constexpr const char* refuse = " EXECUTE FUNCTION ivm.refuse_direct_change()";
}

const char* const guard_trigger = "ivm_refuse_change";

std::string storage_guard_ddl(const std::string& storage) {
    return std::string("CREATE TRIGGER ") + guard_trigger + " BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON " + storage +
           " FOR EACH STATEMENT" + refuse;
}

std::vector<std::string> view_guard_ddl(const std::string& user_view) {
    return {
        // Statement triggers on a view fire only when an INSTEAD OF row
        // trigger handles the statement; both refuse, so even a statement
        // that matches no row is turned down.
        std::string("CREATE TRIGGER ") + guard_trigger + " INSTEAD OF INSERT OR UPDATE OR DELETE ON " + user_view +
            " FOR EACH ROW" + refuse,
        "CREATE TRIGGER ivm_refuse_statement BEFORE INSERT OR UPDATE OR DELETE ON " + user_view +
            " FOR EACH STATEMENT" + refuse,
    };
}

}  // namespace ivm::triggers
