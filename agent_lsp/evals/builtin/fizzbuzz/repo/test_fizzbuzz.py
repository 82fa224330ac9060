from fizzbuzz import fizzbuzz


def test_length():
    assert len(fizzbuzz(15)) == 15


def test_last_is_fizzbuzz():
    assert fizzbuzz(15)[-1] == "FizzBuzz"
