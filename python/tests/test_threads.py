"""Threads: sessions of their own run in parallel (the GIL is released while the device works);
one session shared by threads serves them in turn. Every result is checked."""

import threading

import numpy as np

import vkinfer
from conftest import add_model


def run_in_threads(target, n):
    errors = []

    def guarded(i):
        try:
            target(i)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_sessions_of_their_own_in_parallel(context):
    sessions = [vkinfer.Session(add_model((64, 64)), context) for _ in range(4)]

    def work(i):
        rng = np.random.default_rng(i)
        for _ in range(5):
            x, y = rng.random((2, 64, 64), dtype=np.float32)
            np.testing.assert_array_equal(sessions[i].run({"x": x, "y": y})["z"], x + y)

    run_in_threads(work, 4)


def test_one_session_shared_by_threads(context):
    sess = vkinfer.InferenceSession(add_model((32, 32)))

    def work(i):
        rng = np.random.default_rng(100 + i)
        for _ in range(5):
            x, y = rng.random((2, 32, 32), dtype=np.float32)
            (z,) = sess.run(None, {"x": x, "y": y})
            np.testing.assert_array_equal(z, x + y)

    run_in_threads(work, 4)


def test_close_while_other_threads_run(context):
    sess = vkinfer.Session(add_model((16, 16)), context)
    ones = np.ones((16, 16), np.float32)

    def work(i):
        if i == 0:
            sess.close()
            return
        for _ in range(5):
            try:
                np.testing.assert_array_equal(sess.run({"x": ones, "y": ones})["z"], 2 * ones)
            except vkinfer.InvalidArgumentError as e:  # closed under it: an exception, never a crash
                assert "closed" in str(e)
                return

    run_in_threads(work, 3)
    assert sess.closed


def test_submit_and_wait_keep_frames_apart(context):
    sess = vkinfer.Session(add_model((8, 8)), context, frames_in_flight=2)
    xs = [np.full((8, 8), i, np.float32) for i in range(4)]
    tickets = [sess.submit({"x": x, "y": x}) for x in xs[:2]]
    assert [t.frame for t in tickets] == [0, 1]
    for t, x in zip(tickets, xs):
        np.testing.assert_array_equal(sess.wait(t)["z"], 2 * x)
