#include "models/common/kernel.h"

#include <cstdint>

#include <systemc>

#if defined(__SANITIZE_ADDRESS__)
#include <pthread.h>
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace asim {

namespace {

#if defined(__SANITIZE_ADDRESS__)
// Tells ASan the thread is on its own stack again (its idea of the current stack is the last
// coroutine's, so it ignores the unpoisoning every throw asks for), then unpoisons the dead frames
// below this one. Only shadow memory is written: the stack pages below need not be mapped.
__attribute__((noinline)) void forget_dead_stack_poison() {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        void* bottom = nullptr;
        std::size_t size = 0;
        if (pthread_attr_getstack(&attr, &bottom, &size) == 0) {
            void* fake_stack = nullptr;
            __sanitizer_start_switch_fiber(&fake_stack, bottom, size);
            __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
        }
        pthread_attr_destroy(&attr);
    }
    constexpr std::uintptr_t kDeadFrames = 1
                                           << 20;  // far more than the kernel's deepest call chain
    const auto top = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
    __asan_unpoison_memory_region(reinterpret_cast<void*>(top - kDeadFrames), kDeadFrames);
}
#else
void forget_dead_stack_poison() {}
#endif

}  // namespace

void run_kernel(Picoseconds limit_ps) {
    if (limit_ps > 0) {
        sc_core::sc_start(ClockDomain::from_ps(limit_ps));
    } else {
        sc_core::sc_start();
    }
    forget_dead_stack_poison();
}

bool stopped_by_limit(Picoseconds limit_ps) {
    return limit_ps > 0 && sc_core::sc_time_stamp() >= ClockDomain::from_ps(limit_ps) &&
           sc_core::sc_pending_activity();
}

}  // namespace asim
