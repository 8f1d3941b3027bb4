"""bench.classroom's check `votes sent == votes counted` counts what the store must count: one vote per student
and round that the student's page confirmed, whatever came before or after it (a refusal, a change of mind), and
it says when a vote was lost in flight instead of passing or failing on it."""
from bench.class_common import Result, Vote


def result(*votes: Vote) -> Result:
    r = Result("sqlite", "browser", students=3, processes=1)
    r.votes.extend(votes)
    return r


def test_a_change_of_mind_replaces_a_vote_and_adds_none():
    r = result(Vote(1.0, 1, 1, "a", True), Vote(2.0, 1, 1, "a", True), Vote(1.5, 1, 1, "b", True))
    assert r.sent == 2


def test_a_student_whose_first_answer_was_refused_and_second_confirmed_counts_once():
    # the old bench counted only votes it planned as 'first': this student was counted 0 times, the store once
    r = result(Vote(1.0, 1, 1, "a", False, "locked"), Vote(2.0, 1, 1, "a", True))
    assert r.sent == 1
    assert r.first_votes() == {("a", 1, 1): 2.0}


def test_each_round_counts_on_its_own():
    r = result(Vote(1.0, 2, 1, "a", True), Vote(9.0, 2, 2, "a", True), Vote(9.5, 3, 1, "a", True))
    assert r.sent == 3


def test_a_vote_lost_in_flight_is_in_doubt_unless_the_student_has_a_confirmed_one():
    r = result(Vote(1.0, 1, 1, "a", None), Vote(1.0, 1, 1, "b", True), Vote(2.0, 1, 1, "b", None))
    assert (r.sent, r.in_doubt) == (1, 1)


def test_a_vote_reaches_the_projector_at_the_first_reading_that_includes_it():
    r = result(Vote(10.0, 1, 1, "a", True), Vote(11.0, 1, 1, "b", True), Vote(11.5, 1, 1, "b", True))
    r.projector = [(10.2, 1, 1, 0), (10.7, 1, 1, 1), (11.2, 1, 1, 1), (11.7, 1, 1, 2)]
    assert [round(d, 2) for d in r.delays()] == [0.7, 0.7]
