"""Fusion of the keyword and meaning rankings, on the rankings themselves: which files make
the list, in which order, and which side each is said to be found by."""

from __future__ import annotations

from tools.vectors.fusion import KeywordEvidence, fuse, near

WORDS = [f"minutes/week-{n}.md" for n in range(6)]
TRUSTING = KeywordEvidence(every=frozenset(WORDS), rare=True, query_language="en")


class TestTheMeaningSidesBest:
    def test_keeps_a_place_when_trusted_keyword_hits_fill_the_list(self) -> None:
        fused = fuse(WORDS, ["rules/visa.md", WORDS[0]], TRUSTING, 5)
        assert [one.path for one in fused] == [
            WORDS[0],
            "rules/visa.md",
            *WORDS[1:4],
        ]
        assert fused[0].found_by == ("words", "meaning")
        assert fused[1].found_by == ("meaning",)

    def test_takes_no_place_twice(self) -> None:
        fused = fuse(WORDS, [WORDS[4]], TRUSTING, 5)
        assert [one.path for one in fused] == [WORDS[4], *WORDS[:4]]

    def test_untrusted_words_leave_the_meaning_order(self) -> None:
        fused = fuse(WORDS, ["a.md", "b.md"], KeywordEvidence(), 3)
        assert [one.path for one in fused] == ["a.md", "b.md", WORDS[0]]


class TestNear:
    def test_centred_counts_what_is_nearer_than_the_folders_average(self) -> None:
        assert near([0.2, 0.05, 0.01, 0.0, -0.1], centred=True) == 3

    def test_uncentred_counts_half_the_best_and_more(self) -> None:
        assert near([0.8, 0.5, 0.4, 0.39]) == 3

    def test_nothing_near_when_the_best_is_not(self) -> None:
        assert near([-0.01, -0.2], centred=True) == 0
        assert near([]) == 0
