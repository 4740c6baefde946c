/* Names of record kinds, frame reasons and marks, for dumps and messages.
 * Record and mark names come from the lists of scope/record_kinds.h. */
#include <scope/log_format.h>

#include <assert.h>

/* Record kinds ascend from 1 (a number another minor version holds may
 * be missing: scope_rec_type_known() lists the rows themselves), and the
 * enum puts SCOPE_REC_TYPE_LIMIT one past the last row. */
#define COUNT_ROW(name, number, other) +1
static_assert(SCOPE_MARK_KIND_LIMIT == 1 + (0 SCOPE_MARK_KINDS(COUNT_ROW)),
              "mark kinds are numbered 1, 2, 3 ... without gaps");
static_assert(SCOPE_UNBALANCED_SUBKIND_LIMIT == (0 SCOPE_UNBALANCED_SUBKINDS(COUNT_ROW)),
              "unbalanced subkinds are numbered 0, 1, 2 ... without gaps");
#undef COUNT_ROW

const char *scope_rec_type_name(uint32_t type) {
#define NAME_ROW(name, number, member) [SCOPE_REC_##name] = #name,
    static const char *const names[SCOPE_REC_TYPE_LIMIT] = {SCOPE_REC_KINDS(NAME_ROW)};
#undef NAME_ROW
    return type < SCOPE_REC_TYPE_LIMIT && names[type] ? names[type] : "UNKNOWN";
}

const char *scope_frame_reason_name(uint32_t reason) {
    static const char *const names[SCOPE_FRAME_REASON_LIMIT] = {
        [SCOPE_FRAME_PERIODIC] = "periodic", [SCOPE_FRAME_FLUSH] = "flush",
        [SCOPE_FRAME_EXIT] = "exit",         [SCOPE_FRAME_SIGNAL] = "signal",
        [SCOPE_FRAME_FORK] = "fork",         [SCOPE_FRAME_EXEC] = "exec",
    };
    return reason < SCOPE_FRAME_REASON_LIMIT ? names[reason] : "unknown";
}

const char *scope_mark_kind_name(uint32_t kind) {
#define NAME_ROW(name, number, text) [SCOPE_MARK_##name] = text,
    static const char *const names[SCOPE_MARK_KIND_LIMIT] = {SCOPE_MARK_KINDS(NAME_ROW)};
#undef NAME_ROW
    return kind < SCOPE_MARK_KIND_LIMIT && names[kind] ? names[kind] : "unknown";
}

const char *scope_unbalanced_subkind_name(uint32_t subkind) {
#define NAME_ROW(name, number, text) [SCOPE_UNBALANCED_##name] = text,
    static const char *const names[SCOPE_UNBALANCED_SUBKIND_LIMIT] = {
        SCOPE_UNBALANCED_SUBKINDS(NAME_ROW)};
#undef NAME_ROW
    return subkind < SCOPE_UNBALANCED_SUBKIND_LIMIT ? names[subkind] : "unknown";
}
