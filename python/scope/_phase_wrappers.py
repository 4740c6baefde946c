"""The Python half of `@scope.phase(name)` (the C half is scope/_recorder.c).

A plain function is wrapped in C (_PhaseFunction): the phase opens around
each call and closes however the call ends.  A generator or a coroutine is
not running while it is suspended, and other work runs on its thread
meanwhile, so a phase held open across a `yield` or an `await` would charge
that other work to it and take the other phases in as its children.  Here
the phase is open while the generator or coroutine runs: around each
resumption, from resuming to the next `yield`/`await` that suspends it (or
its end).  A phase's entries then count resumptions, not calls; its total is
the time the body ran.
"""

import functools
import inspect

from . import _recorder


def _drive(ph, inner):
    """Runs `inner` (a generator, or a coroutine's send/throw protocol) one
    resumption at a time, each inside `ph`, passing values, exceptions and
    close() through as `yield from` would."""
    send, throw = inner.send, inner.throw
    value, error = None, None
    while True:
        try:
            with ph:
                out = send(value) if error is None else throw(error)
        except StopIteration as stop:
            return stop.value
        value, error = None, None
        try:
            value = yield out
        except GeneratorExit:
            with ph:
                inner.close()
            raise
        except BaseException as e:  # thrown in: passed on to the inner one
            error = e


class _Awaitable:
    __slots__ = ("_ph", "_coro")

    def __init__(self, ph, coro):
        self._ph, self._coro = ph, coro

    def __await__(self):
        return (yield from _drive(self._ph, self._coro))


def wrap(ph, func):
    """`ph(func)`: func with every call (or resumption) a phase."""
    if inspect.isasyncgenfunction(func):
        raise TypeError(
            f"scope.phase({ph.name!r}) cannot decorate an async generator "
            f"({func.__qualname__}); open the phase inside it, around work "
            "that does not await"
        )
    if inspect.isgeneratorfunction(func):

        @functools.wraps(func)
        def generator(*args, **kwargs):
            return (yield from _drive(ph, func(*args, **kwargs)))

        return generator
    if inspect.iscoroutinefunction(func):

        @functools.wraps(func)
        async def coroutine(*args, **kwargs):
            return await _Awaitable(ph, func(*args, **kwargs))

        return coroutine
    return functools.update_wrapper(_recorder._PhaseFunction(ph, func), func)


_recorder._set_wrapper(wrap)
