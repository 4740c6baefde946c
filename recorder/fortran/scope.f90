! The scope recorder from Fortran: module scope, ISO_C_BINDING interfaces to
! libscope's C API (scope/scope.h), with Fortran strings and integers.
!
!   use scope
!   rc = scope_init('run', 'solver')      ! optional arguments: run_dir, role
!   call scope_phase_begin('assemble')
!   call scope_count('cells', ncells)     ! any integer kind 4 or 8
!   call scope_phase_end()
!   rc = scope_flush()
!   call scope_shutdown()
!
! A Fortran string is padded with blanks, so trailing blanks are no part of
! a name (a name is len_trim of its string).  Names go to the recorder with
! their length, through scope_phase_begin_n and scope_count_n, so a phase
! costs what the C explicit form costs and copies nothing; only scope_init
! and scope_lines_begin, called once, make NUL-terminated copies.
module scope
    use, intrinsic :: iso_c_binding, only: c_char, c_int, c_int32_t, c_int64_t, c_size_t, &
                                           c_null_char, c_ptr, c_null_ptr, c_loc
    implicit none
    private
    public :: scope_init, scope_shutdown, scope_flush
    public :: scope_phase_begin, scope_phase_end, scope_count
    public :: scope_lines_begin, scope_lines_end

    interface
        function c_scope_init(run_dir, role) bind(C, name='scope_init') result(rc)
            import :: c_ptr, c_int
            type(c_ptr), value :: run_dir, role
            integer(c_int) :: rc
        end function c_scope_init

        subroutine scope_shutdown() bind(C, name='scope_shutdown')
        end subroutine scope_shutdown

        function c_scope_flush() bind(C, name='scope_flush') result(rc)
            import :: c_int
            integer(c_int) :: rc
        end function c_scope_flush

        subroutine c_scope_phase_begin_n(name, len) bind(C, name='scope_phase_begin_n')
            import :: c_char, c_size_t
            character(kind=c_char), dimension(*), intent(in) :: name
            integer(c_size_t), value :: len
        end subroutine c_scope_phase_begin_n

        subroutine scope_phase_end() bind(C, name='scope_phase_end')
        end subroutine scope_phase_end

        subroutine c_scope_count_n(name, len, n) bind(C, name='scope_count_n')
            import :: c_char, c_size_t, c_int64_t
            character(kind=c_char), dimension(*), intent(in) :: name
            integer(c_size_t), value :: len
            integer(c_int64_t), value :: n
        end subroutine c_scope_count_n

        function c_scope_lines_begin(project_dir) bind(C, name='scope_lines_begin') result(rc)
            import :: c_ptr, c_int
            type(c_ptr), value :: project_dir
            integer(c_int) :: rc
        end function c_scope_lines_begin

        function c_scope_lines_end() bind(C, name='scope_lines_end') result(rc)
            import :: c_int
            integer(c_int) :: rc
        end function c_scope_lines_end
    end interface

    ! scope_count(name, n) for integers of 4 and 8 bytes.
    interface scope_count
        module procedure scope_count_int32, scope_count_int64
    end interface scope_count

contains

    ! Starts recording into run_dir (absent: $SCOPE_RUN_DIR, else
    ! "scope-run") as role (absent: $SCOPE_ROLE, else the program's name).
    ! Returns 0, or -1 when recording could not start (the program runs on,
    ! unrecorded).
    integer function scope_init(run_dir, role)
        character(len=*), intent(in), optional :: run_dir, role
        character(kind=c_char, len=:), allocatable, target :: dir_c, role_c
        type(c_ptr) :: dir_p, role_p
        dir_p = c_null_ptr
        role_p = c_null_ptr
        if (present(run_dir)) then
            dir_c = trim(run_dir)//c_null_char
            dir_p = c_loc(dir_c)
        end if
        if (present(role)) then
            role_c = trim(role)//c_null_char
            role_p = c_loc(role_c)
        end if
        scope_init = int(c_scope_init(dir_p, role_p))
    end function scope_init

    ! Writes everything recorded so far, now.  Returns 0, or -1 when the
    ! write failed (the data stays queued for the next try).
    integer function scope_flush()
        scope_flush = int(c_scope_flush())
    end function scope_flush

    ! Opens the phase name on this thread; every begin needs one end.
    subroutine scope_phase_begin(name)
        character(len=*), intent(in) :: name
        call c_scope_phase_begin_n(name, int(len_trim(name), c_size_t))
    end subroutine scope_phase_begin

    subroutine scope_count_int64(name, n)
        character(len=*), intent(in) :: name
        integer(c_int64_t), intent(in) :: n
        call c_scope_count_n(name, int(len_trim(name), c_size_t), n)
    end subroutine scope_count_int64

    subroutine scope_count_int32(name, n)
        character(len=*), intent(in) :: name
        integer(c_int32_t), intent(in) :: n
        call c_scope_count_n(name, int(len_trim(name), c_size_t), int(n, c_int64_t))
    end subroutine scope_count_int32

    ! Samples source lines until the matching scope_lines_end (nestable).
    ! project_dir: the folder whose lines the time is charged to (absent:
    ! $SCOPE_LINES_PROJECT, else the git root, else the working directory).
    integer function scope_lines_begin(project_dir)
        character(len=*), intent(in), optional :: project_dir
        character(kind=c_char, len=:), allocatable, target :: dir_c
        type(c_ptr) :: dir_p
        dir_p = c_null_ptr
        if (present(project_dir)) then
            dir_c = trim(project_dir)//c_null_char
            dir_p = c_loc(dir_c)
        end if
        scope_lines_begin = int(c_scope_lines_begin(dir_p))
    end function scope_lines_begin

    integer function scope_lines_end()
        scope_lines_end = int(c_scope_lines_end())
    end function scope_lines_end

end module scope
