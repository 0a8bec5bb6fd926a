import threading

import pytest

from synckit import CountDownLatch


def test_zero_latch_is_open():
    assert CountDownLatch(0).wait(timeout=0)


def test_negative_count_is_refused():
    with pytest.raises(ValueError):
        CountDownLatch(-1)


def test_closed_until_counted_down():
    latch = CountDownLatch(2)
    latch.count_down()
    assert latch.count == 1
    assert not latch.wait(timeout=0.01)


def test_opens_after_last_count_down():
    latch = CountDownLatch(2)
    latch.count_down()
    latch.count_down()
    assert latch.wait()


def test_waiter_thread_is_released():
    latch = CountDownLatch(1)
    released = []
    waiter = threading.Thread(target=lambda: released.append(latch.wait()))
    waiter.start()
    latch.count_down()
    waiter.join()
    assert released == [True]
