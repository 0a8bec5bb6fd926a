from synckit import CountDownLatch, run_all


def test_extra_count_downs_keep_it_open():
    latch = CountDownLatch(1)
    latch.count_down()
    latch.count_down()
    assert latch.count == 0
    assert latch.wait(timeout=1)


def test_count_after_opening():
    latch = CountDownLatch(3)
    for _ in range(3):
        latch.count_down()
    assert latch.count == 0
    assert latch.wait(timeout=1)


def test_one_short_stays_closed():
    latch = CountDownLatch(3)
    latch.count_down()
    latch.count_down()
    assert not latch.wait(timeout=0.05)


def test_failing_task_gives_its_exception():
    def boom():
        raise KeyError("x")

    results = run_all([lambda: "a", boom])
    assert results[0] == "a"
    assert isinstance(results[1], KeyError)


def test_single_task():
    assert run_all([lambda: 42]) == [42]
