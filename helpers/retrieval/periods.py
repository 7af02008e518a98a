"""Time-aware retrieval (self-query): the academic year a question asks about decides which versions are searched.

`PeriodAware` wraps any retriever. A question that names a year ("in Winter 2024") gets a filter inside the store,
`{"academic_year": Not(other years)}` (and the other terms' files when it names a term), so undated chunks pass;
one that names none ("this fall") means the newest version of each document: older versions move behind the rest.
What it leaves out: the reader as a judge of the year, and questions about several years at once ("since 2022").
"""

from __future__ import annotations

from collections.abc import Sequence

from helpers.chunking.periods import PERIOD_KEY, TERM_KEY, asked_period, version_family, year_of_path
from helpers.config import RetrievalSettings
from helpers.retrieval.base import Filters, Retriever
from helpers.store import KitStore, Not
from helpers.types import Hit


def older_versions(sources: Sequence[str]) -> set[str]:
    """The sources that are an older version of another source: same family, an earlier academic year in the path."""
    newest: dict[str, str] = {}
    for source in sources:
        if year := year_of_path(source):
            family = version_family(source)
            newest[family] = max(newest.get(family, year), year)
    return {s for s in sources if (year := year_of_path(s)) and year < newest[version_family(s)]}


def newest_first(hits: Sequence[Hit], older: set[str]) -> list[Hit]:
    """The hits with those of older versions moved behind the rest, each group in its order."""
    return [hit for hit in hits if hit.source not in older] + [hit for hit in hits if hit.source in older]


class PeriodAware:
    """Any retriever, restricted to the academic year a question names, or leaning to the newest versions."""

    def __init__(
        self,
        retriever: Retriever,
        store: KitStore,
        fetch_multiplier: int = RetrievalSettings().fetch_multiplier,
        by_term: bool = True,
    ) -> None:
        self.retriever, self.store, self.fetch_multiplier, self.by_term = retriever, store, fetch_multiplier, by_term
        self._known: tuple[str, list[str], list[str], set[str]] | None = None  # (version, years, terms, older sources)

    def __repr__(self) -> str:
        return f"PeriodAware({self.retriever!r})"

    def known(self) -> tuple[list[str], list[str], set[str]]:
        """The academic years and terms the collection holds and its sources that are older versions (asked once
        per write)."""
        version = self.store.points_version() or str(self.store.count())
        if self._known is None or self._known[0] != version:
            years, terms = self.store.distinct_values(PERIOD_KEY), self.store.distinct_values(TERM_KEY)
            self._known = (version, years, terms, older_versions(self.store.distinct_values("source")))
        return self._known[1], self._known[2], self._known[3]

    def year_filter(self, question: str) -> Filters | None:
        """The filter an explicit question gets ({"academic_year": Not(the other years)}, and the same on
        `academic_term` when it names a term the collection holds), or None."""
        years, terms, _ = self.known()
        asked = asked_period(question)
        asked_years = [year for year in asked.years if year in years]
        asked_terms = [term for term in asked.terms if term in terms] if self.by_term else []
        found: Filters = {}
        if asked_years:
            found[PERIOD_KEY] = Not(year for year in years if year not in asked_years)
        if asked_terms:
            found[TERM_KEY] = Not(term for term in terms if term not in asked_terms)
        return found or None

    def retrieve(self, query: str, k: int, filters: Filters | None = None) -> list[Hit]:
        """The top k of the asked year (filtered in the store), or of the newest versions first."""
        if filters and PERIOD_KEY in filters:  # the caller chose the year
            return self.retriever.retrieve(query, k, filters)
        if (year := self.year_filter(query)) is not None:
            return self.retriever.retrieve(query, k, {**(filters or {}), **year})
        _, _, older = self.known()
        if not older:
            return self.retriever.retrieve(query, k, filters)
        return newest_first(self.retriever.retrieve(query, k * self.fetch_multiplier, filters), older)[:k]
