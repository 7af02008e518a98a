"""The classroom: the student version of the notebooks, the same notebooks as an nbgrader course, the rendered site.

    >>> write_student_version("student")   # or: python -m helpers student-version student
    >>> write_course("course")             # or: python -m helpers nbgrader-course course
    >>> build_site("build/executed", "site")   # or: bash scripts/render.sh (executes them first)

What it leaves out: the grading itself (nbgrader's commands run on the course) and the self-checks (exercises/).
"""

from helpers.classroom.grading import write_course
from helpers.classroom.student import (
    BEGIN,
    END,
    MARKDOWN_STUB,
    STUB,
    ClassroomError,
    student_source,
    write_student_version,
)

__all__ = [
    "BEGIN",
    "END",
    "MARKDOWN_STUB",
    "STUB",
    "ClassroomError",
    "student_source",
    "write_course",
    "write_student_version",
]
