/* stall: the warp-state vocabulary of the timing model, under Nsight Compute's names.
 *
 * Every cycle of every resident warp is charged to exactly one of these reasons. The order is
 * fixed (it is the index stored in trace files and the order of the reports); the names are
 * Nsight Compute's "smsp__pcsamp_warps_issue_stalled_<name>" suffixes, so what a student reads
 * here is what the profiler shows. One plain sentence per reason, in English and Chinese, is
 * part of the table (the viewer's legend and docs/model.md use the same words).
 */
#ifndef WL_STALL_H
#define WL_STALL_H

/* X(ID, name, english, chinese) */
#define STALL_REASONS(X)                                                                          \
    X(SELECTED, "selected",                                                                       \
      "The scheduler picked this warp and it issued an instruction this cycle.",                  \
      "调度器在这个周期选中了该线程束，它发射了一条指令。")                                          \
    X(NOT_SELECTED, "not_selected",                                                               \
      "The warp was ready to issue, but the scheduler picked another warp this cycle.",           \
      "该线程束已经可以发射，但调度器这个周期选了另一个线程束。")                                    \
    X(LONG_SCOREBOARD, "long_scoreboard",                                                         \
      "The warp waits for the result of a global or local memory access (L1TEX).",                \
      "该线程束在等待一次全局或本地内存访问（L1TEX）的结果。")                                       \
    X(SHORT_SCOREBOARD, "short_scoreboard",                                                       \
      "The warp waits for the result of a shared-memory, special-function, shuffle or LDC op "   \
      "(MIO).",                                                                                  \
      "该线程束在等待共享内存、特殊函数、洗牌或常量加载（LDC）指令（MIO）的结果。")                 \
    X(WAIT, "wait",                                                                               \
      "The warp waits a fixed number of cycles: a previous math result, or its own last pipe use.", \
      "该线程束在固定等待若干周期：前一条运算指令的结果，或它自己上一条指令占用的流水线。")        \
    X(BARRIER, "barrier",                                                                         \
      "The warp waits at a barrier (__syncthreads) for the other warps of its block.",            \
      "该线程束停在屏障（__syncthreads）处，等待同一线程块的其他线程束到达。")                       \
    X(MEMBAR, "membar",                                                                           \
      "The warp waits for a memory fence until its earlier memory accesses are visible.",         \
      "该线程束停在内存栅栏处，等待它之前的内存访问全部可见。")                                      \
    X(MIO_THROTTLE, "mio_throttle",                                                               \
      "The warp cannot issue because the MIO queue (shared memory, SFU, shuffles) is full.",      \
      "MIO 队列（共享内存、特殊函数、洗牌）已满，该线程束无法发射。")                                \
    X(LG_THROTTLE, "lg_throttle",                                                                 \
      "The warp cannot issue because the queue for global/local memory instructions is full.",    \
      "全局/本地内存指令队列已满，该线程束无法发射。")                                              \
    X(MATH_PIPE_THROTTLE, "math_pipe_throttle",                                                   \
      "The warp cannot issue because other warps keep the execution pipe it needs busy.",          \
      "其他线程束占满了该线程束需要的运算流水线，它无法发射。")                                    \
    X(DISPATCH_STALL, "dispatch_stall",                                                           \
      "The warp was selected but the dispatcher could not send the instruction on.",             \
      "该线程束已被选中，但分派单元无法把指令送出。")                                              \
    X(NO_INSTRUCTION, "no_instruction",                                                           \
      "The warp has no instruction fetched yet (instruction cache miss or just after a jump).",   \
      "该线程束还没有取到下一条指令（指令缓存未命中或刚刚跳转）。")                                  \
    X(BRANCH_RESOLVING, "branch_resolving",                                                       \
      "The warp waits for a branch target to be computed and the active threads to be updated.",  \
      "该线程束在等待分支目标计算完成、活跃线程掩码更新。")                                          \
    X(DRAIN, "drain",                                                                             \
      "The warp has exited and waits for its outstanding memory stores to finish.",               \
      "该线程束已经退出，正在等待尚未完成的内存写操作结束。")                                        \
    X(SLEEPING, "sleeping",                                                                       \
      "The warp sleeps (nanosleep) or all its threads wait on something else.",                   \
      "该线程束处于睡眠（nanosleep），或它的所有线程都在等待其他事情。")                             \
    X(MISC, "misc",                                                                               \
      "The warp stalls for a reason the model does not split out further.",                       \
      "该线程束因模型未细分的其他原因而停顿。")

typedef enum {
#define STALL_X(id, name, en, zh) STALL_##id,
    STALL_REASONS(STALL_X)
#undef STALL_X
    STALL_COUNT
} stall_reason;

/* Nsight Compute's name ("long_scoreboard"); "?" for an out-of-range value. */
const char *stall_name(int reason);
/* One plain sentence; lang "zh" gives Chinese, anything else English. */
const char *stall_describe(int reason, const char *lang);
/* Index of a name, or -1. */
int stall_from_name(const char *name);

#endif
