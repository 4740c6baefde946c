/* run_h5_layout: the fields of every table of the "scope-run" HDF5 layout
 * (run_h5_layout.h), named as docs/hdf5.md documents them. */
#include "run_h5_layout.h"

#include "run_model.h"

#include <pthread.h>
#include <stddef.h>
#include <string.h>

/* A field named as its member, or (FN) as given. */
#define F(T, m, ty)                                                                                \
    { #m, offsetof(T, m), SCOPE_H5_##ty, 0 }
#define FN(T, n, m, ty)                                                                            \
    { n, offsetof(T, m), SCOPE_H5_##ty, 0 }
/* A field added later, which older files lack (scope_h5_field.optional). */
#define FO(T, m, ty)                                                                               \
    { #m, offsetof(T, m), SCOPE_H5_##ty, 1 }
#define TABLE(var, p, T, fields)                                                                   \
    const run_h5_table var = {p, {sizeof(T), sizeof fields / sizeof fields[0], fields}}

static const scope_h5_field process_fields[] = {
    F(h5_process_row, path, STR),
    F(h5_process_row, readable, U8),
    F(h5_process_row, has_process, U8),
    F(h5_process_row, run_id, STR),
    F(h5_process_row, uuid, STR),
    F(h5_process_row, host, STR),
    F(h5_process_row, role, STR),
    F(h5_process_row, job_id, STR),
    F(h5_process_row, step_id, STR),
    F(h5_process_row, exe, STR),
    F(h5_process_row, cwd, STR),
    F(h5_process_row, recorder_version, STR),
    F(h5_process_row, pid, I64),
    F(h5_process_row, ppid, I64),
    F(h5_process_row, rank, I32),
    F(h5_process_row, local_rank, I32),
    F(h5_process_row, node_rank, I32),
    F(h5_process_row, world_size, I32),
    F(h5_process_row, start_wall_ns, U64),
    F(h5_process_row, last_wall_ns, U64),
    F(h5_process_row, runtime_ns, U64),
    F(h5_process_row, frames, U64),
    F(h5_process_row, frames_lost, U64),
    F(h5_process_row, bytes_skipped, U64),
    F(h5_process_row, truncated, U8),
    F(h5_process_row, end, STR),
    F(h5_process_row, end_signal, I32),
    F(h5_process_row, unbalanced, U64),
    F(h5_process_row, dropped, U64),
    F(h5_process_row, flush_failed, U8),
    F(h5_process_row, nthreads, U32),
    F(h5_process_row, phase_ns, U64),
    F(h5_process_row, open_rc, I32),
    F(h5_process_row, open_msg, STR),
    F(h5_process_row, max_gap_ns, U64),
    F(h5_process_row, open_phase_marks, U64),
    F(h5_process_row, inconsistent, U64),
    F(h5_process_row, inconsistent_what, STR),
    F(h5_process_row, attempt, I64),
    F(h5_process_row, role_index, I64),
    FO(h5_process_row, launcher_known, U8),
    FO(h5_process_row, launcher, STR),
    FO(h5_process_row, array_job_id, STR),
    FO(h5_process_row, array_task, I32),
    FO(h5_process_row, restarts, I32),
};
TABLE(h5t_processes, "/processes", h5_process_row, process_fields);

static const scope_h5_field damage_fields[] = {
    F(h5_damage_row, process, U32),  F(h5_damage_row, offset, U64),
    F(h5_damage_row, length, U64),   F(h5_damage_row, frames_lost, U64),
    F(h5_damage_row, truncated, U8), F(h5_damage_row, what, STR),
};
TABLE(h5t_damage, "/process_damage", h5_damage_row, damage_fields);

static const scope_h5_field note_fields[] = {
    F(h5_note_row, process, U32),
    F(h5_note_row, text, STR),
};
TABLE(h5t_notes, "/process_notes", h5_note_row, note_fields);

static const scope_h5_field cap_fields[] = {
    F(h5_cap_row, process, U32), F(h5_cap_row, kind, STR),  F(h5_cap_row, left_out, U64),
    F(h5_cap_row, cap, U64),     F(h5_cap_row, by_run, U8),
};
TABLE(h5t_caps, "/process_caps", h5_cap_row, cap_fields);

const char *const run_h5_cap_kinds[READ_KINDS] = {
    [READ_NODES] = "nodes",
    [READ_COUNTERS] = "counters",
    [READ_NAMES] = "names",
    [READ_BINS] = "histograms",
};

static const scope_h5_field node_fields[] = {
    F(h5_node_row, process, U32),        F(h5_node_row, id, U32),
    F(h5_node_row, parent, U32),         F(h5_node_row, name, STR),
    F(h5_node_row, named, U8),           F(h5_node_row, thread, U32),
    F(h5_node_row, flags, U32),          F(h5_node_row, file, STR),
    F(h5_node_row, line, U32),           F(h5_node_row, has_agg, U8),
    F(h5_node_row, left_open, U8),       F(h5_node_row, count, U64),
    F(h5_node_row, wall_ns, U64),        F(h5_node_row, min_ns, U64),
    F(h5_node_row, max_ns, U64),         F(h5_node_row, cpu_count, U64),
    F(h5_node_row, cpu_wall_ns, U64),    F(h5_node_row, cpu_ns, U64),
    F(h5_node_row, io_flags, U32),       F(h5_node_row, io_count, U64),
    F(h5_node_row, io_failed, U64),      F(h5_node_row, disk_read, U64),
    F(h5_node_row, disk_write, U64),     F(h5_node_row, char_read, U64),
    F(h5_node_row, char_write, U64),     FO(h5_node_row, delay_count, U64),
    FO(h5_node_row, delay_wall_ns, U64), FO(h5_node_row, delay_ns, U64),
};
TABLE(h5t_nodes, "/phase_nodes", h5_node_row, node_fields);

static const scope_h5_field bin_fields[] = {
    F(h5_bin_row, process, U32),
    F(h5_bin_row, node, U32),
    F(h5_bin_row, bucket, U32),
    F(h5_bin_row, count, U64),
};
TABLE(h5t_bins, "/phase_node_bins", h5_bin_row, bin_fields);

static const scope_h5_field counter_fields[] = {
    F(h5_counter_row, process, U32), F(h5_counter_row, id, U32),     F(h5_counter_row, name, STR),
    F(h5_counter_row, node, U32),    F(h5_counter_row, thread, U32), F(h5_counter_row, calls, U64),
    F(h5_counter_row, total, I64),
};
TABLE(h5t_counters, "/counters", h5_counter_row, counter_fields);

static const scope_h5_field res_fields[] = {
    F(h5_res_row, process, U32),        F(h5_res_row, present, U32),
    F(h5_res_row, intervals, U64),      F(h5_res_row, sampled_ns, U64),
    F(h5_res_row, dropped, U64),        F(h5_res_row, first_wall_ns, U64),
    F(h5_res_row, last_wall_ns, U64),   F(h5_res_row, disk_read, U64),
    F(h5_res_row, disk_write, U64),     F(h5_res_row, char_read, U64),
    F(h5_res_row, char_write, U64),     F(h5_res_row, cpu_user_ns, U64),
    F(h5_res_row, cpu_sys_ns, U64),     F(h5_res_row, rss_max, U64),
    F(h5_res_row, rss_peak, U64),       F(h5_res_row, rss_last, U64),
    F(h5_res_row, thread_records, U64), F(h5_res_row, t_disk_read, U64),
    F(h5_res_row, t_disk_write, U64),   F(h5_res_row, t_char_read, U64),
    F(h5_res_row, t_char_write, U64),   F(h5_res_row, t0_ns, U64),
    F(h5_res_row, width_ns, U64),       F(h5_res_row, nused, U32),
};
TABLE(h5t_res, "/resources", h5_res_row, res_fields);

static const scope_h5_field res_bucket_fields[] = {
    F(h5_res_bucket_row, process, U32),
    F(h5_res_bucket_row, bucket, U32),
    F(h5_res_bucket_row, start_ns, U64),
    FN(h5_res_bucket_row, "sampled_ns", b.sampled_ns, U64),
    FN(h5_res_bucket_row, "disk_read", b.disk_read, U64),
    FN(h5_res_bucket_row, "cache_read", b.cache_read, U64),
    FN(h5_res_bucket_row, "disk_write", b.disk_write, U64),
    FN(h5_res_bucket_row, "char_write", b.char_write, U64),
    FN(h5_res_bucket_row, "cpu_ns", b.cpu_ns, U64),
    FN(h5_res_bucket_row, "rss_max", b.rss_max, U64),
    FN(h5_res_bucket_row, "peak_read", b.peak_read, F32),
    FN(h5_res_bucket_row, "peak_cache", b.peak_cache, F32),
    FN(h5_res_bucket_row, "peak_write", b.peak_write, F32),
};
TABLE(h5t_res_buckets, "/resource_series", h5_res_bucket_row, res_bucket_fields);

static const scope_h5_field res_node_fields[] = {
    F(h5_res_node_row, process, U32),
    FN(h5_res_node_row, "node", io.node, U32),
    FN(h5_res_node_row, "disk_read", io.disk_read, U64),
    FN(h5_res_node_row, "disk_write", io.disk_write, U64),
    FN(h5_res_node_row, "char_read", io.char_read, U64),
    FN(h5_res_node_row, "char_write", io.char_write, U64),
    FN(h5_res_node_row, "p_disk_read", io.p_disk_read, U64),
    FN(h5_res_node_row, "p_disk_write", io.p_disk_write, U64),
    FN(h5_res_node_row, "p_char_read", io.p_char_read, U64),
    FN(h5_res_node_row, "p_char_write", io.p_char_write, U64),
};
TABLE(h5t_res_nodes, "/resource_phase_io", h5_res_node_row, res_node_fields);

static const scope_h5_field gpu_fields[] = {
    F(h5_gpu_row, process, U32),      F(h5_gpu_row, slot, U32),
    F(h5_gpu_row, index, U32),        F(h5_gpu_row, present, U32),
    F(h5_gpu_row, run_seen, U8),      F(h5_gpu_row, busy_ns, U64),
    F(h5_gpu_row, run_ns, U64),       F(h5_gpu_row, busy_sum, F64),
    F(h5_gpu_row, run_sum, F64),      F(h5_gpu_row, busy_max, U32),
    F(h5_gpu_row, run_max, U32),      F(h5_gpu_row, mem_run_max, U64),
    F(h5_gpu_row, mem_run_last, U64), F(h5_gpu_row, mem_total, U64),
    F(h5_gpu_row, mem_used_max, U64), F(h5_gpu_row, t0_ns, U64),
    F(h5_gpu_row, width_ns, U64),     F(h5_gpu_row, nused, U32),
};
TABLE(h5t_gpus, "/gpus", h5_gpu_row, gpu_fields);

static const scope_h5_field gpu_bucket_fields[] = {
    F(h5_gpu_bucket_row, process, U32),
    F(h5_gpu_bucket_row, slot, U32),
    F(h5_gpu_bucket_row, bucket, U32),
    F(h5_gpu_bucket_row, start_ns, U64),
    FN(h5_gpu_bucket_row, "busy_ns", b.busy_ns, U64),
    FN(h5_gpu_bucket_row, "run_ns", b.run_ns, U64),
    FN(h5_gpu_bucket_row, "busy_sum", b.busy_sum, F64),
    FN(h5_gpu_bucket_row, "run_sum", b.run_sum, F64),
    FN(h5_gpu_bucket_row, "mem_run_max", b.mem_run_max, U64),
    FN(h5_gpu_bucket_row, "run_seen", b.run_seen, U8),
    FN(h5_gpu_bucket_row, "mem_run_present", b.mem_run_present, U8),
};
TABLE(h5t_gpu_buckets, "/gpu_series", h5_gpu_bucket_row, gpu_bucket_fields);

static const scope_h5_field module_fields[] = {
    F(h5_module_row, process, U32),  F(h5_module_row, id, U32),   F(h5_module_row, path, STR),
    F(h5_module_row, build_id, STR), F(h5_module_row, base, U64), F(h5_module_row, size, U64),
};
TABLE(h5t_modules, "/line_modules", h5_module_row, module_fields);

static const scope_h5_field frame_fields[] = {
    F(h5_frame_row, process, U32),
    F(h5_frame_row, stack, U32),
    F(h5_frame_row, module, U32),
    F(h5_frame_row, offset, U64),
};
TABLE(h5t_frames, "/line_stack_frames", h5_frame_row, frame_fields);

static const scope_h5_field sample_fields[] = {
    F(h5_sample_row, process, U32), F(h5_sample_row, thread, U32), F(h5_sample_row, node, U32),
    F(h5_sample_row, stack, U32),   F(h5_sample_row, count, U64),  F(h5_sample_row, period_ns, U64),
    FO(h5_sample_row, state, U32),
};
TABLE(h5t_samples, "/line_samples", h5_sample_row, sample_fields);

static const scope_h5_field sampler_fields[] = {
    F(h5_sampler_row, process, U32),   F(h5_sampler_row, project, STR),
    F(h5_sampler_row, hz, U32),        F(h5_sampler_row, clock, U32),
    F(h5_sampler_row, period_ns, U64), F(h5_sampler_row, samples, U64),
    F(h5_sampler_row, dropped, U64),   F(h5_sampler_row, truncated, U64),
    F(h5_sampler_row, threads, U32),   F(h5_sampler_row, threads_failed, U32),
    F(h5_sampler_row, flags, U32),     FO(h5_sampler_row, format_minor, U32),
};
TABLE(h5t_sampler, "/line_sampler", h5_sampler_row, sampler_fields);

static const scope_h5_field measured_fields[] = {
    F(h5_measured_row, process, U32), F(h5_measured_row, region, STR),
    F(h5_measured_row, file, STR),    F(h5_measured_row, function, STR),
    F(h5_measured_row, line, U32),    F(h5_measured_row, def_line, U32),
    F(h5_measured_row, hits, U64),    F(h5_measured_row, seconds, F64),
};
TABLE(h5t_measured, "/line_measured", h5_measured_row, measured_fields);

static const scope_h5_field attempt_fields[] = {
    F(h5_attempt_row, run_id, STR),
    F(h5_attempt_row, nprocs, U64),
    F(h5_attempt_row, start_wall_ns, U64),
    F(h5_attempt_row, end_wall_ns, U64),
};
TABLE(h5t_attempts, "/attempts", h5_attempt_row, attempt_fields);

static const scope_h5_field role_fields[] = {
    F(h5_role_row, name, STR),
    F(h5_role_row, nprocs, U64),
    F(h5_role_row, nphases, U64),
    F(h5_role_row, phase_ns, U64),
    F(h5_role_row, imbalance, F64),
    F(h5_role_row, slowest_process, I64),
    F(h5_role_row, first_phase, U64),
    F(h5_role_row, has_iterations, U8),
    F(h5_role_row, iterations_count, U64),
    F(h5_role_row, iterations_total_ns, U64),
    F(h5_role_row, iterations_min_ns, U64),
    F(h5_role_row, iterations_max_ns, U64),
    F(h5_role_row, iterations_mean_ns, F64),
    F(h5_role_row, iterations_p50_ns, F64),
    F(h5_role_row, iterations_p95_ns, F64),
    F(h5_role_row, iterations_p99_ns, F64),
};
TABLE(h5t_roles, "/roles", h5_role_row, role_fields);

static const scope_h5_field role_process_fields[] = {
    F(h5_role_process_row, role, U32),
    F(h5_role_process_row, process, U32),
};
TABLE(h5t_role_processes, "/role_processes", h5_role_process_row, role_process_fields);

/* /phases: these, then the figures (run_h5_phases), then the rest. */
static const scope_h5_field phase_head_fields[] = {
    F(h5_phase_row, role, U32), F(h5_phase_row, parent, I64), F(h5_phase_row, depth, U32),
    F(h5_phase_row, name, STR), F(h5_phase_row, path, STR),   F(h5_phase_row, flags, U32),
    F(h5_phase_row, file, STR), F(h5_phase_row, line, U32),
};

static const scope_h5_field phase_tail_fields[] = {
    F(h5_phase_row, nprocs, U64),
    F(h5_phase_row, spread_min_ns, F64),
    F(h5_phase_row, spread_median_ns, F64),
    F(h5_phase_row, spread_max_ns, F64),
    F(h5_phase_row, spread_max_process, I64),
    F(h5_phase_row, has_histogram, U8),
    F(h5_phase_row, io_measured, U8),
    F(h5_phase_row, io_count, U64),
    F(h5_phase_row, io_failed, U64),
    F(h5_phase_row, disk_read, U64),
    F(h5_phase_row, disk_write, U64),
    F(h5_phase_row, char_read, U64),
    F(h5_phase_row, char_write, U64),
    F(h5_phase_row, cache_read, U64),
    F(h5_phase_row, disk_bytes_per_s, F64),
    F(h5_phase_row, smp_io, U8),
    F(h5_phase_row, smp_disk_read, U64),
    F(h5_phase_row, smp_disk_write, U64),
    F(h5_phase_row, smp_char_read, U64),
    F(h5_phase_row, smp_char_write, U64),
};

#define NHEAD (sizeof phase_head_fields / sizeof phase_head_fields[0])
#define NTAIL (sizeof phase_tail_fields / sizeof phase_tail_fields[0])

static scope_h5_field phase_fields[NHEAD + PF_N + NTAIL];
static run_h5_table phases_table = {"/phases", {sizeof(h5_phase_row), 0, phase_fields}};
static pthread_once_t phases_once = PTHREAD_ONCE_INIT;

static void build_phases(void) {
    enum phase_fig ids[PF_N];
    size_t n = 0, k = phase_figures_in(PF_OUT_H5, ids);
    for (size_t i = 0; i < NHEAD; i++)
        phase_fields[n++] = phase_head_fields[i];
    for (size_t i = 0; i < k; i++)
        phase_fields[n++] = (scope_h5_field){
            phase_figures[ids[i]].h5, offsetof(h5_phase_row, fig) + i * sizeof(h5_figure),
            phase_figures[ids[i]].type == PF_F64 ? SCOPE_H5_F64 : SCOPE_H5_U64, 0};
    for (size_t i = 0; i < NTAIL; i++)
        phase_fields[n++] = phase_tail_fields[i];
    phases_table.t.nfields = n;
}

const run_h5_table *run_h5_phases(void) {
    pthread_once(&phases_once, build_phases);
    return &phases_table;
}

static const scope_h5_field phase_counter_fields[] = {
    F(h5_phase_counter_row, role, U32),        F(h5_phase_counter_row, phase, I64),
    F(h5_phase_counter_row, name, STR),        F(h5_phase_counter_row, calls, U64),
    F(h5_phase_counter_row, total, I64),       F(h5_phase_counter_row, rate_per_s, F64),
    F(h5_phase_counter_row, ns_per_unit, F64),
};
TABLE(h5t_phase_counters, "/phase_counters", h5_phase_counter_row, phase_counter_fields);

static const scope_h5_field caveat_fields[] = {
    F(h5_caveat_row, kind, STR),
    F(h5_caveat_row, process, I64),
    F(h5_caveat_row, text, STR),
};
TABLE(h5t_caveats, "/caveats", h5_caveat_row, caveat_fields);

static const scope_h5_field line_fields[] = {
    F(h5_line_row, file, STR),       F(h5_line_row, line, U32),
    F(h5_line_row, function, STR),   F(h5_line_row, module, STR),
    F(h5_line_row, approximate, U8), F(h5_line_row, samples, U64),
    F(h5_line_row, seconds, F64),    F(h5_line_row, share, F64),
    F(h5_line_row, share_sd, F64),   F(h5_line_row, kind, STR),
    F(h5_line_row, hits, U64),       F(h5_line_row, linkage_name, STR),
};
TABLE(h5t_lines, "/lines", h5_line_row, line_fields);

static const scope_h5_field dominant_fields[] = {
    F(h5_dominant_row, role, U32),
    F(h5_dominant_row, rank, U32),
    F(h5_dominant_row, phase, U64),
};
TABLE(h5t_dominant, "/dominant_phases", h5_dominant_row, dominant_fields);

static const scope_h5_field phase_process_fields[] = {
    F(h5_phase_process_row, phase, U64),
    F(h5_phase_process_row, process, U32),
    F(h5_phase_process_row, total_ns, F64),
};
TABLE(h5t_phase_processes, "/phase_processes", h5_phase_process_row, phase_process_fields);

/* ---- the summary ---------------------------------------------------------------- */

static const scope_h5_field sum_process_fields[] = {
    F(h5_sum_process_row, path, STR),
    F(h5_sum_process_row, readable, U8),
    F(h5_sum_process_row, has_process, U8),
    F(h5_sum_process_row, run_id, STR),
    F(h5_sum_process_row, uuid, STR),
    F(h5_sum_process_row, host, STR),
    F(h5_sum_process_row, role, STR),
    F(h5_sum_process_row, job_id, STR),
    F(h5_sum_process_row, step_id, STR),
    F(h5_sum_process_row, exe, STR),
    F(h5_sum_process_row, cwd, STR),
    F(h5_sum_process_row, recorder_version, STR),
    F(h5_sum_process_row, pid, I64),
    F(h5_sum_process_row, ppid, I64),
    F(h5_sum_process_row, rank, I32),
    F(h5_sum_process_row, local_rank, I32),
    F(h5_sum_process_row, node_rank, I32),
    F(h5_sum_process_row, world_size, I32),
    F(h5_sum_process_row, launcher, STR),
    F(h5_sum_process_row, array_job_id, STR),
    F(h5_sum_process_row, array_task, I32),
    F(h5_sum_process_row, restarts, I32),
    F(h5_sum_process_row, start_wall_ns, U64),
    F(h5_sum_process_row, start_mono_ns, U64),
    F(h5_sum_process_row, last_wall_ns, U64),
    F(h5_sum_process_row, last_mono_ns, U64),
    F(h5_sum_process_row, runtime_ns, U64),
    F(h5_sum_process_row, frames, U64),
    F(h5_sum_process_row, frames_lost, U64),
    F(h5_sum_process_row, bytes_skipped, U64),
    F(h5_sum_process_row, truncated, U8),
    F(h5_sum_process_row, end, STR),
    F(h5_sum_process_row, end_signal, I32),
    F(h5_sum_process_row, stale, U8),
    F(h5_sum_process_row, stale_ns, U64),
    F(h5_sum_process_row, unbalanced, U64),
    F(h5_sum_process_row, dropped, U64),
    F(h5_sum_process_row, flush_failed, U8),
    F(h5_sum_process_row, nthreads, U32),
    F(h5_sum_process_row, phase_ns, U64),
    F(h5_sum_process_row, line_samples, U64),
    F(h5_sum_process_row, ncaveats, U64),
    F(h5_sum_process_row, trace_state, I32),
    F(h5_sum_process_row, trace_phase, STR),
    F(h5_sum_process_row, trace_first, U64),
    F(h5_sum_process_row, trace_last, U64),
    F(h5_sum_process_row, trace_start_mono_ns, U64),
    F(h5_sum_process_row, trace_end_mono_ns, U64),
    F(h5_sum_process_row, trace_events, U64),
    F(h5_sum_process_row, trace_cap, U64),
    F(h5_sum_process_row, trace_lost, U64),
};
TABLE(h5t_sum_processes, "/summary/processes", h5_sum_process_row, sum_process_fields);
TABLE(h5t_sum_attempts, "/summary/attempts", h5_attempt_row, attempt_fields);

static const scope_h5_field sum_role_fields[] = {F(h5_sum_role_row, name, STR)};
TABLE(h5t_sum_roles, "/summary/roles", h5_sum_role_row, sum_role_fields);

static const scope_h5_field sum_role_process_fields[] = {
    F(h5_sum_role_process_row, role, U32),
    F(h5_sum_role_process_row, process, U64),
};
TABLE(h5t_sum_role_processes, "/summary/role_processes", h5_sum_role_process_row,
      sum_role_process_fields);

static const scope_h5_field sum_phase_process_fields[] = {
    F(h5_sum_phase_process_row, phase, U32),   F(h5_sum_phase_process_row, proc, U32),
    F(h5_sum_phase_process_row, ns, F64),      F(h5_sum_phase_process_row, count, U64),
    F(h5_sum_phase_process_row, open_ns, U64), F(h5_sum_phase_process_row, cpu_ns, U64),
};
TABLE(h5t_sum_phase_processes, "/summary/phase_processes", h5_sum_phase_process_row,
      sum_phase_process_fields);

static const scope_h5_field sum_bin_fields[] = {
    F(h5_sum_bin_row, phase, U64),
    F(h5_sum_bin_row, bucket, U32),
    F(h5_sum_bin_row, count, U64),
};
TABLE(h5t_sum_bins, "/summary/phase_bins", h5_sum_bin_row, sum_bin_fields);

static const scope_h5_field sum_counter_fields[] = {
    F(h5_sum_counter_row, role, U32),  F(h5_sum_counter_row, phase, I64),
    F(h5_sum_counter_row, name, STR),  F(h5_sum_counter_row, calls, U64),
    F(h5_sum_counter_row, total, I64),
};
TABLE(h5t_sum_counters, "/summary/phase_counters", h5_sum_counter_row, sum_counter_fields);
TABLE(h5t_sum_caveats, "/summary/caveats", h5_caveat_row, caveat_fields);
TABLE(h5t_sum_res, "/summary/resources", h5_res_row, res_fields);
TABLE(h5t_sum_res_buckets, "/summary/resource_series", h5_res_bucket_row, res_bucket_fields);
TABLE(h5t_sum_res_nodes, "/summary/resource_phase_io", h5_res_node_row, res_node_fields);
TABLE(h5t_sum_gpus, "/summary/gpus", h5_gpu_row, gpu_fields);
TABLE(h5t_sum_gpu_buckets, "/summary/gpu_series", h5_gpu_bucket_row, gpu_bucket_fields);

static const scope_h5_field sum_phase_head_fields[] = {
    F(h5_sum_phase_row, role, U32),         F(h5_sum_phase_row, parent, I64),
    F(h5_sum_phase_row, name, STR),         F(h5_sum_phase_row, file, STR),
    F(h5_sum_phase_row, tags, STR),         F(h5_sum_phase_row, line, U32),
    F(h5_sum_phase_row, flags, U32),        F(h5_sum_phase_row, file_proc, U64),
    F(h5_sum_phase_row, has_histogram, U8),
};

static const scope_h5_field sum_phase_tail_fields[] = {
    F(h5_sum_phase_row, delay_count, U64),    F(h5_sum_phase_row, delay_wall_ns, U64),
    F(h5_sum_phase_row, delay_ns, U64),       F(h5_sum_phase_row, io_measured, U8),
    F(h5_sum_phase_row, io_count, U64),       F(h5_sum_phase_row, io_failed, U64),
    F(h5_sum_phase_row, disk_read, U64),      F(h5_sum_phase_row, disk_write, U64),
    F(h5_sum_phase_row, char_read, U64),      F(h5_sum_phase_row, char_write, U64),
    F(h5_sum_phase_row, smp_io, U8),          F(h5_sum_phase_row, smp_disk_read, U64),
    F(h5_sum_phase_row, smp_disk_write, U64), F(h5_sum_phase_row, smp_char_read, U64),
    F(h5_sum_phase_row, smp_char_write, U64),
};

#define NSUMHEAD (sizeof sum_phase_head_fields / sizeof sum_phase_head_fields[0])
#define NSUMTAIL (sizeof sum_phase_tail_fields / sizeof sum_phase_tail_fields[0])

static scope_h5_field sum_phase_fields[NSUMHEAD + PF_N + NSUMTAIL];
static run_h5_table sum_phases_table = {"/summary/phases",
                                        {sizeof(h5_sum_phase_row), 0, sum_phase_fields}};
static pthread_once_t sum_phases_once = PTHREAD_ONCE_INIT;

size_t run_h5_sum_figures(enum phase_fig ids[PF_N]) {
    size_t n = 0;
    for (int f = 0; f < PF_N; f++)
        if (phase_figures[f].merge == PF_MERGE_SUM || phase_figures[f].merge == PF_MERGE_MIN ||
            phase_figures[f].merge == PF_MERGE_MAX)
            ids[n++] = (enum phase_fig)f;
    return n;
}

static void build_sum_phases(void) {
    enum phase_fig ids[PF_N];
    size_t n = 0, k = run_h5_sum_figures(ids);
    for (size_t i = 0; i < NSUMHEAD; i++)
        sum_phase_fields[n++] = sum_phase_head_fields[i];
    /* Named as check's metrics are: every figure has that name. */
    for (size_t i = 0; i < k; i++)
        sum_phase_fields[n++] = (scope_h5_field){
            phase_figures[ids[i]].name, offsetof(h5_sum_phase_row, fig) + i * sizeof(uint64_t),
            SCOPE_H5_U64, 0};
    for (size_t i = 0; i < NSUMTAIL; i++)
        sum_phase_fields[n++] = sum_phase_tail_fields[i];
    sum_phases_table.t.nfields = n;
}

const run_h5_table *run_h5_sum_phases(void) {
    pthread_once(&sum_phases_once, build_sum_phases);
    return &sum_phases_table;
}

static const char *const end_names[] = {
    [RUN_END_EXIT] = "exit",
    [RUN_END_SIGNAL] = "signal",
    [RUN_END_KILLED] = "killed",
    [RUN_END_UNKNOWN] = "unknown",
};

const char *run_h5_end_name(int end) {
    return end >= 0 && (size_t)end < sizeof end_names / sizeof end_names[0] ? end_names[end]
                                                                            : "unknown";
}

int run_h5_end_of(const char *name) {
    for (size_t i = 0; i < sizeof end_names / sizeof end_names[0]; i++)
        if (!strcmp(end_names[i], name))
            return (int)i;
    return -1;
}
