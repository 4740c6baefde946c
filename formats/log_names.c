/* Names of record kinds, frame reasons and marks, for dumps and messages. */
#include <scope/log_format.h>

const char *scope_rec_type_name(uint32_t type) {
    static const char *const names[SCOPE_REC_TYPE_LIMIT] = {
        [SCOPE_REC_FRAME] = "FRAME",
        [SCOPE_REC_PROCESS] = "PROCESS",
        [SCOPE_REC_STRING] = "STRING",
        [SCOPE_REC_THREAD] = "THREAD",
        [SCOPE_REC_PHASE_NODE] = "PHASE_NODE",
        [SCOPE_REC_PHASE_AGG] = "PHASE_AGG",
        [SCOPE_REC_COUNTER] = "COUNTER",
        [SCOPE_REC_RESOURCE] = "RESOURCE",
        [SCOPE_REC_MODULE] = "MODULE",
        [SCOPE_REC_STACK] = "STACK",
        [SCOPE_REC_STACK_SAMPLES] = "STACK_SAMPLES",
        [SCOPE_REC_MARK] = "MARK",
        [SCOPE_REC_TRACE] = "TRACE",
    };
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
    static const char *const names[SCOPE_MARK_KIND_LIMIT] = {
        [SCOPE_MARK_SIGNAL] = "signal",     [SCOPE_MARK_FORK] = "fork",
        [SCOPE_MARK_EXEC] = "exec",         [SCOPE_MARK_FLUSH_FAILED] = "flush-failed",
        [SCOPE_MARK_SHUTDOWN] = "shutdown", [SCOPE_MARK_CAVEAT] = "caveat",
        [SCOPE_MARK_DROPPED] = "dropped",   [SCOPE_MARK_UNBALANCED] = "unbalanced",
    };
    return kind < SCOPE_MARK_KIND_LIMIT && names[kind] ? names[kind] : "unknown";
}
