! Phases and counters recorded from Fortran through the module `scope`
! (recorder/fortran/scope.f90), with their truth known by construction, for
! test_fortran.sh:
!
!   fortran_workload RUN
!
! Role "fsolver": "warmup" once, empty (the thread's first phase, which
! attaches it), then "solve" once, holding 50 entries each of "assemble"
! (given as 'assemble   ': trailing blanks are no part of a Fortran name),
! which counts 1000 "cells" (an 8-byte integer) and 3 "faces" (a 4-byte
! one), and of "smooth".  Prints "solve_ns N", solve's wall time measured
! around its begin and end on the program's own clock, and "rc" lines with
! what scope_init, scope_lines_begin/end and scope_flush returned.
program fortran_workload
    use scope
    use, intrinsic :: iso_fortran_env, only: int32, int64
    implicit none
    character(len=4096) :: run
    integer :: i, rc_init, rc_flush, rc_lb, rc_le
    integer(int64) :: t0, t1, rate

    if (command_argument_count() /= 1) then
        write (0, *) 'usage: fortran_workload RUN'
        stop 2
    end if
    call get_command_argument(1, run)
    rc_init = scope_init(run_dir=run, role='fsolver')
    rc_lb = scope_lines_begin()
    ! The thread's first phase attaches it to the recorder (and to the line
    ! sampler, which sets up its timer): not the work timed below.
    call scope_phase_begin('warmup')
    call scope_phase_end()
    call system_clock(t0, rate)
    call scope_phase_begin('solve')
    do i = 1, 50
        call scope_phase_begin('assemble   ')
        call spin(200000_int64)
        call scope_count('cells', 1000_int64)
        call scope_count('faces', 3_int32)
        call scope_phase_end()
        call scope_phase_begin('smooth')
        call spin(100000_int64)
        call scope_phase_end()
    end do
    call scope_phase_end()
    call system_clock(t1)
    rc_le = scope_lines_end()
    rc_flush = scope_flush()
    call scope_shutdown()
    ! List-directed: libgfortran reads a format string with strndup past
    ! its end, which AddressSanitizer's strict_string_checks calls an
    ! overflow.
    print *, 'solve_ns ', (t1 - t0) * (1000000000_int64 / rate)
    print *, 'rc ', rc_init, rc_lb, rc_le, rc_flush

contains

    ! Spins for ns nanoseconds of the program's clock.
    subroutine spin(ns)
        integer(int64), intent(in) :: ns
        integer(int64) :: start, now, r
        call system_clock(start, r)
        do
            call system_clock(now)
            if ((now - start) * (1000000000_int64 / r) >= ns) exit
        end do
    end subroutine spin

end program fortran_workload
