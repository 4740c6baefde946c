! A Fortran program built against an installed scope only: by
! test_install.sh with `gfortran ... $(pkg-config --cflags --libs
! scope-fortran)`, and by the CMake project next to it with
! Scope::scope_fortran.
!
! usage: app_f ROLE   (the run directory comes from SCOPE_RUN_DIR)
! Records 100 entries of f_outer, each with one f_inner and an f_items
! count of 2; exits 1 if recording fails.
program app_f
    use scope
    implicit none
    character(len=256) :: role
    integer :: i, k, sink
    call get_command_argument(1, role)
    if (scope_init(role=role) /= 0) then
        write (0, *) 'app_f: scope_init failed'
        stop 1
    end if
    sink = 0
    do i = 1, 100
        call scope_phase_begin('f_outer')
        call scope_phase_begin('f_inner')
        do k = 1, 1000
            sink = sink + mod(k, 7)
        end do
        call scope_phase_end()
        call scope_count('f_items', 2)
        call scope_phase_end()
    end do
    if (scope_flush() /= 0) then
        write (0, *) 'app_f: scope_flush failed'
        stop 1
    end if
    if (sink < 0) print *, sink
end program app_f
