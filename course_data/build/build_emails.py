"""Generate the e-mail part of the course corpus: RFC 5322 `.eml` files in course_data/docs/emails/.

Every message is data below (MESSAGES, in chronological order); the script only turns it into
well-formed messages with Python's `email` package (EmailMessage, policy.default): display names,
RFC 2822 dates with a time zone, deterministic Message-IDs, In-Reply-To/References for replies,
quoted replies with an "On <date>, <name> wrote:" line, one Latin-1 body, one text/calendar
attachment and one multipart/alternative (text + HTML) newsletter.
All facts agree with course_data/build/facts.yaml (the e-mail-only facts E1-E12 live here).
Fictional content, CC BY 4.0.

    .venv/bin/python course_data/build/build_emails.py
"""

from __future__ import annotations

import html
import textwrap
from datetime import datetime, timedelta, timezone
from email import policy
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "docs" / "emails"
WIDTH = 74

# Harbor City keeps U.S. Central-style time: daylight time until 2026-11-01 and from 2027-03-14.
CDT, CST = timezone(timedelta(hours=-5)), timezone(timedelta(hours=-6))

PEOPLE = {
    "dana": ("Dana Whitcombe", "d.whitcombe@lakeside.edu"),
    "rebecca": ("Rebecca Tran", "r.tran@lakeside.edu"),
    "fatima": ("Fatima Al-Sayed", "f.alsayed@lakeside.edu"),
    "colin": ("Colin Marsh", "c.marsh@lakeside.edu"),
    "theo": ("Theo Lindgren", "t.lindgren@lakeside.edu"),
    "luis": ("Luis Ortega-Brandt", "l.ortegabrandt@lakeside.edu"),
    "priscilla": ("Priscilla Vandermeer", "p.vandermeer@lakeside.edu"),
    "kevin": ("Kevin Osei", "kosei@u.lakeside.edu"),
    "sofia": ("Sofia Marchetti", "smarchetti@u.lakeside.edu"),
    "meilin": ("Mei-Lin Zhou", "mzhou@u.lakeside.edu"),
    "arjun": ("Arjun Bhattacharya", "abhattacharya@u.lakeside.edu"),
    "jordan": ("Jordan Ellery", "jellery@u.lakeside.edu"),
    "tomas": ("Tomás Ferreira", "tferreira@u.lakeside.edu"),
    "thornbury": ("Dr. Benjamin Thornbury", "b.thornbury@lakeside.edu"),
    "natalie": ("Natalie Brennan-Cho", "n.brennancho@lakeside.edu"),
    "raghunathan": ("Dr. Priya Raghunathan", "p.raghunathan@lakeside.edu"),
    "park": ("Dr. Jun-ho Park", "j.park@lakeside.edu"),
    "okafor": ("Dr. Miriam Okafor", "m.okafor@lakeside.edu"),
    "wieczorek": ("Dr. Tomasz Wieczorek", "t.wieczorek@lakeside.edu"),
    "vasquez": ("Dr. Elena Vasquez-Hartley", "e.vasquezhartley@lakeside.edu"),
    # mailing lists
    "students": ("MS-ADS Students", "ads-students@lakeside.edu"),
    "gss": ("Graduate Student Services", "ads-students@lakeside.edu"),
    "careers": ("Career Development Office", "careers-ads@lakeside.edu"),
    "bursar": ("Student Accounts", "bursar@lakeside.edu"),
    "isso": ("International Student Office", "intl-students@lakeside.edu"),
    "rc": ("Research Computing", "research-computing@lakeside.edu"),
    "capstone": ("Capstone Studio", "capstone-ads@lakeside.edu"),
    "beacon": ("Beacon Users", "beacon-users@lists.lakeside.edu"),
    "l510": ("ADS 510 Autumn 2026 (Sections A and C)", "ads510-au26@lists.lakeside.edu"),
    "l530b": ("ADS 530 B Winter 2027", "ads530b-wi27@lists.lakeside.edu"),
    "l631": ("ADS 631 Winter 2027", "ads631-wi27@lists.lakeside.edu"),
    "l698a": ("ADS 698A Winter 2027", "ads698a-wi27@lists.lakeside.edu"),
    "l620": ("ADS 620 Spring 2027", "ads620-sp27@lists.lakeside.edu"),
    "mle1": ("First-Year MLE Students", "mle-first-year@lists.lakeside.edu"),
    "f1": ("SCDS F-1 Students", "scds-f1@lists.lakeside.edu"),
    "ship": ("LU-SHIP Waiver Students, Autumn 2026", "ship-waiver-au26@lists.lakeside.edu"),
    "grads": ("Spring 2027 Graduation Candidates", "ads-grads-2027@lists.lakeside.edu"),
    "ldss": ("Lakeside Data Science Society", "ldss@lakeside.edu"),
}


def when(stamp: str) -> datetime:
    """'2026-10-05 09:30' in Harbor City local time (daylight or standard)."""
    naive = datetime.fromisoformat(stamp)
    daylight = naive < datetime(2026, 11, 1, 2) or naive >= datetime(2027, 3, 14, 2)
    return naive.replace(tzinfo=CDT if daylight else CST)


# Each message: key, file slug, date, sender, to, cc, subject, body (paragraphs separated by a blank
# line, each paragraph one source line; wrapped at build time). Replies name their `parent` and the
# parent paragraphs they `quote` (indices into the parent's paragraphs).
MESSAGES: list[dict] = [
    # ------------------------------------------------------------------ Autumn 2026
    dict(key="welcome", slug="welcome-autumn-2026", date="2026-09-15 10:05", sender="dana", to=["students"],
         subject="Welcome to Autumn 2026: orientation, first week and key dates",
         body="""\
Dear students,

Welcome (and welcome back) to the MS in Applied Data Science! Whether you are joining us from the Python Bootcamp, arriving from another city or country, or returning for your second year, we are glad you are here. This message collects the practical details for the next three weeks in one place, so please keep it handy.

New Student Orientation runs Monday, September 21 and Tuesday, September 22, from 9:00 am to 4:00 pm both days in MDC 110. Attendance is mandatory for all new students. Students in the online Analytics and Decision Science variant attend virtually; the Zoom link will arrive in a separate calendar invitation. Your track is confirmed at orientation, so bring any questions about MLE versus ADSc to the track sessions on Tuesday afternoon.

Autumn instruction begins Thursday, September 24. The ADS 590 Career Seminar meets on Fridays from 12:00 pm to 12:50 pm in MDC 110 (hybrid), starting Friday, September 25. Remember that you need an S in ADS 590 in each of your first three quarters, and an S requires attendance at 7 of the 9 sessions.

ACTION ITEMS AND DEADLINES
- Pay your Autumn tuition, or enroll in LU FlexPay, by Friday, October 2.
- Apply to Lighthouse Mentors (the alumni mentoring program) by Friday, October 2.
- Finalize your schedule by the Autumn add/drop deadline, Wednesday, October 7.
- If you have comparable health coverage and want to waive LU-SHIP, submit the waiver by Friday, October 9. F-1 students may not waive.

Graduate Student Services is in Founders Hall, FND 140. We are open Monday to Thursday from 8:30 am to 5:00 pm and Friday from 8:30 am to 4:00 pm. During the first two weeks of the quarter we stay open until 7:00 pm on Wednesdays (September 30 and October 7) for students who work during the day.

If something is confusing, or you simply do not know whom to ask, write to ads-students@lakeside.edu or call (555) 284-3100. No question is too small in week one.

Warm regards,
Dana Whitcombe
Graduate Program Coordinator, MS in Applied Data Science
Graduate Student Services (SCDS), FND 140
"""),
    dict(key="mentors", slug="lighthouse-mentors-and-careers-fair", date="2026-09-30 14:20", sender="natalie",
         to=["students"], subject="Lighthouse Mentors closes Friday + Autumn Data Careers Fair on October 21",
         body="""\
Hello everyone,

Two quick notes from the Career Development Office as the quarter gets going.

First, applications for Lighthouse Mentors close this Friday, October 2. The program pairs you with an alumna or alumnus working in data science for the whole academic year, and we ask pairs to meet at least once a month. Last year's participants told us the most useful conversations were about their first 90 days on the job, not about interviews, so come with curiosity. The application takes about ten minutes on Handshake.

Second, please save Wednesday, October 21 for the Autumn Data Careers Fair. It runs from 11:00 am to 3:00 pm in the MDC atrium, and we expect 42 employers, from Northwind Mutual Insurance and Cobalt Harbor Health to Brightline Logistics and the Harbor City Office of Data and Innovation. This is the in-person fair; the Winter fair in February is virtual.

To get ready, bring your résumé to drop-in advising on Wednesdays from 1:00 pm to 3:00 pm in FND 150, or book a 30-minute appointment through Handshake. We will also run a résumé clinic in the Friday, October 9 session of ADS 590, with Jonas Müller, a senior data scientist at Quillfeather Software, joining us to say what he looks for when he screens applications for his team.

A few practical tips for the fair:
- Print a handful of copies of a one-page résumé; recruiters still like paper.
- Prepare a 30-second introduction that names your track and one project.
- Research three employers in advance and have one real question for each.

Looking forward to seeing you there,

Natalie Brennan-Cho
Director of Career Development
Career Development Office, FND 150 | careers-ads@lakeside.edu | (555) 284-3150
"""),
    dict(key="ldss", slug="ldss-autumn-kickoff", date="2026-10-01 17:45", sender="jordan", to=["students"],
         cc=["ldss"], subject="LDSS Autumn kickoff: paper reading, Kaggle nights and how to get involved",
         body="""\
Hi everyone,

I'm Jordan Ellery, a second-year MLE student and this year's president of the Lakeside Data Science Society (LDSS), the program's largest student group. Welcome to the new students, and welcome back to everyone else.

Our Autumn kickoff is next Thursday, October 8 at 6:00 pm in the MDC atrium. Come meet the committee, hear what we have planned for the year, and eat a lot of dumplings. No sign-up needed.

Here is what LDSS runs every week:
- Paper reading on Tuesdays at 5:30 pm in MDC 204. We alternate between a classic paper and something from the last month. This quarter's theme is evaluation: how we know whether a model is any good.
- Kaggle nights every other Thursday from 6:30 pm, with pizza. Teams mix first- and second-years, and you do not need to have done a competition before.
- Industry talks about twice a quarter, usually on Wednesday evenings, often with alumni.

Later in the year we organize HarborHack, the student hackathon, which takes place on February 27 and 28, 2027. If you would like to help organize it, we are looking for volunteers for sponsors, logistics and judging. It is a great way to meet people across both tracks.

Online and part-time students: we stream the paper reading sessions on Zoom and keep a channel for remote members. Tell us what times would work for you, and we will try to add an evening event that suits people who work during the day.

Join the mailing list by writing to ldss@lakeside.edu.

Cheers,
Jordan Ellery
President, Lakeside Data Science Society
"""),
    dict(key="schol", slug="scholarship-info-session", date="2026-10-05 09:30", sender="theo", to=["students"],
         subject="Scholarship and fellowship info session, Thursday October 15 (lunch provided)",
         body="""\
Dear MS students,

Scholarship season is starting earlier than many of you expect, so I would like to walk everyone through the awards that current students can still apply for this year.

I am hosting a scholarship and fellowship information session on Thursday, October 15, 2026 at 12:00 pm in BWL 302, the Collaboration Studio on the third floor of Birchwood Library. You can also join on Zoom; the link goes to everyone who RSVPs. Lunch is provided for those attending in person.

Please RSVP by Tuesday, October 13 using the short form on the scholarships page, or simply reply to this e-mail with "in person" or "Zoom". The RSVP helps us order the right amount of food and send the Zoom link.

At the session we will cover:
- the Veridian Robotics MLE Scholarship ($5,000; deadline November 20, 2026; for first-year MLE students with at least 12 completed units and a GPA of 3.40 or higher),
- the Lakeside Women in Data Science Scholarship ($6,500; deadline February 1, 2027),
- the Civic Data Fellowship ($8,000 plus a paid summer placement with the Harbor City Office of Data and Innovation; deadline March 15, 2027),
- teaching and research assistantships, and how they combine with scholarships.

I will also explain the stacking rule: the total institutional scholarship support you receive may not exceed the tuition you are charged, but external awards are not limited. We will spend the last twenty minutes on essays: what reviewers look for, and the most common mistakes we see.

If you cannot attend either way, the slides will be posted on the scholarships page the following week.

Best wishes,
Theo Lindgren
Scholarships and Financial Aid Coordinator, SCDS
t.lindgren@lakeside.edu
"""),
    dict(key="schol_q", parent="schol", quote=[1, 2], slug="scholarship-info-session-question",
         date="2026-10-06 16:48", sender="tomas", to=["theo"], subject=None,
         body="""\
Hi Theo,

Thanks for organizing this. I will be there in person, so please count me in for lunch.

I have two questions before the session, in case it is easier to answer by e-mail. First, I am a first-year ADSc student, so I assume the Veridian Robotics scholarship is not for me, but is there anything comparable for the analytics track? Second, will the Zoom part be recorded? A classmate of mine has a lab on Thursday at noon and asked me to check.

One more small thing: is lunch vegetarian-friendly? Several of us in the ADSc cohort are vegetarian.

Obrigado,
Tomás Ferreira
MS-ADS, Analytics and Decision Science (first year)
"""),
    dict(key="schol_a", parent="schol_q", quote=[1, 2], slug="scholarship-info-session-answer",
         date="2026-10-07 11:15", sender="theo", to=["tomas"], subject=None,
         body="""\
Hi Tomás,

You're on the list for in-person, thanks for letting me know.

You are right that the Veridian Robotics MLE Scholarship is limited to MLE students. For an ADSc student the closest match is the Civic Data Fellowship: first-year students from either track can apply, ADSc students are preferred, and you must be eligible to work in the U.S. because it includes a paid 10-week summer placement at $24.00 per hour. We award four of them. The Women in Data Science Scholarship is also open to both tracks.

We will not record the session, because people tend to ask about their personal situations and I want them to feel comfortable doing that. Your classmate is very welcome to book a 20-minute appointment with me instead, and the slides will be online the week after.

And yes, there will be vegetarian and vegan options at lunch.

See you on the 15th,
Theo
"""),
    dict(key="oh510", slug="ads510-office-hours-change", date="2026-10-08 13:02", sender="kevin", to=["l510"],
         subject="ADS 510: my office hours are moving (starting next week)",
         body="""\
Hi everyone,

Quick logistics note from your ADS 510 TA.

Starting Monday, October 12, my office hours move from Mondays 3:00 pm to 5:00 pm in MDC 015 to Wednesdays 2:00 pm to 4:00 pm in BWL 302 (the Collaboration Studio on the third floor of Birchwood Library). The GPU Teaching Lab has been booked for research workshops on Monday afternoons for the rest of the quarter, and the library room has more whiteboard space anyway.

This means there are no Monday office hours from next week on. This coming Monday, October 12, I will not be in MDC 015; the first session in the new slot is Wednesday, October 14.

Homework 3 (testing with pytest and a small Git workflow) is due Sunday, October 18 at 11:59 pm. Please push your repository before you submit the link on Canvas, and make sure the tests run with a single `pytest` command from the repository root. About a third of Homework 2 submissions lost points because the tests only worked from inside a subfolder.

If you want feedback on your Homework 3 test design before the deadline, the Wednesday, October 14 slot is the one to come to. Bring your laptop with the repository cloned.

See you Wednesday,
Kevin Osei
TA, ADS 510 Programming for Data Science (Sections A and C)
"""),
    dict(key="oh510_q", parent="oh510", quote=[1], slug="ads510-office-hours-online-question",
         date="2026-10-08 19:40", sender="arjun", to=["kevin"], subject=None,
         body="""\
Hi Kevin,

I'm in section C (the online evening section) and studying part-time, so I work until 5:00 pm most days and I'm not in Harbor City. Wednesday afternoon in the library won't work for me.

Is there any way to join the new office hours remotely, or another time for online students? I have a question about how the Homework 3 tests should be organized when a function reads a file. At the moment my tests open a CSV in the data folder of the repository, and they pass on my laptop but fail when I run them from the repository root, which I think is exactly the problem you described.

I'm happy to send my code in advance if that makes it quicker. Thanks for all the help so far.

Thanks,
Arjun Bhattacharya
"""),
    dict(key="oh510_a", parent="oh510_q", quote=[1, 2], slug="ads510-office-hours-online-answer",
         date="2026-10-09 08:55", sender="kevin", to=["arjun"], subject=None,
         body="""\
Hi Arjun,

Good question, and you're not the only one in section C who asked.

I'll keep a Zoom room open during the Wednesday 2:00 pm to 4:00 pm hours as well; the link is pinned in the section C channel on Canvas. For students who can't make any daytime slot, I'm adding a short evening Zoom session on Thursdays from 8:00 pm to 8:45 pm, right after section C finishes. Just drop in.

On your actual question: for Homework 3, use pytest's `tmp_path` fixture to write a small file inside the test and pass its path to your function. That keeps the test independent of where it's run from. I'll show an example on Thursday evening.

Kevin
"""),
    dict(key="track", slug="track-change-question", date="2026-10-12 21:10", sender="tomas", to=["dana"],
         charset="iso-8859-1", subject="Question: changing from ADSc to MLE?",
         body="""\
Olá Dana,

My name is Tomás Ferreira and I am a first-year full-time student in the Analytics and Decision Science track. I am writing because after three weeks of ADS 510 and ADS 520 I have discovered that I enjoy the engineering side much more than I expected, and I am thinking about switching to the Machine Learning Engineering track.

I have a few questions. Is it possible to change track after orientation? If yes, until when can I decide, and whom do I ask? Would I lose the credits I am taking now? I am currently in ADS 501, ADS 510, ADS 520, ADS 646 and ADS 590.

Also, my family in São Paulo is asking whether a change would make me graduate later, because they are helping with tuition. I would prefer to finish in five quarters as planned if possible.

Muito obrigado pela ajuda, and sorry for the long message.

Tomás Ferreira
MS-ADS, first year (ADSc)
"""),
    dict(key="track_a", parent="track", quote=[1, 2], slug="track-change-answer", date="2026-10-13 10:30",
         sender="dana", to=["tomas"], cc=["wieczorek"], subject=None,
         body="""\
Hi Tomás,

Thanks for the clear message, and no need to apologize. Yes, you can change track. Each student may change track once, by petition to the associate director, Dr. Tomasz Wieczorek (copied here). The petition has to be filed no later than the add/drop deadline of your third enrolled quarter. For you, the third quarter is Spring 2027, so the last day would be the Spring add/drop deadline, Friday, April 9, 2027.

You would not lose any credit. ADS 501, 510 and 520 are core courses that every MS student takes, and ADS 590 is core as well. ADS 646 is an ADSc track course, so under MLE it would not count as a track requirement; MLE electives must be 600-level ADS courses, and ADS 646 does not fit that rule either. Please plan on those 2 units not counting toward an MLE degree.

The timing matters more than the deadline suggests. ADS 633, the Data Engineering Practicum, is required for MLE, is taught in person and is offered only in Winter. If you switch before Winter registration opens on November 16, you can take ADS 633 in Winter 2027 alongside ADS 530 and ADS 545 and keep a five-quarter plan. If you wait until Spring, you would have to take ADS 633 in Winter 2028, which would almost certainly add a quarter.

My suggestion: come to Dr. Wieczorek's office hours (Thursdays 10:00 am to 11:30 am, MDC 403) this week or next, and bring a draft plan. The petition form is on the policies page.

Best,
Dana
"""),
    dict(key="refund", slug="lu-ship-refund-action-required", date="2026-10-28 09:00", sender="rebecca", to=["ship"],
         subject="Action required: LU-SHIP charged despite an approved waiver (refund form due November 13)",
         body="""\
Dear student,

You are receiving this message because our records show that you submitted a Lakeside Student Health Insurance Plan (LU-SHIP) waiver that was approved on or before the waiver deadline of October 9, 2026, but your Autumn 2026 statement still shows the $1,276 health insurance fee. A batch of approved waivers was not transferred to our billing system in time, and I apologize for the confusion this has caused.

To get the charge reversed, please submit the Health Fee Refund Request form to bursar@lakeside.edu by Friday, November 13, 2026. The form is attached to your account notices in the student portal under "Student Accounts > Forms". You only need to fill in your student ID, the waiver confirmation number you received in September, and how you paid your Autumn balance.

Refunds are issued within 15 business days to the original payment method. If you paid by card, the refund goes back to that card; if you paid by bank transfer, it goes back to the same account. We cannot issue refunds as checks or to a different account.

Please do not simply deduct the $1,276 from your next payment. If your account still shows an unpaid Autumn balance after November 13, the registrar places a registration hold on it, which blocks Winter registration. Submitting the form on time prevents that: once your form is in, we mark the insurance charge as disputed and it will not trigger a hold.

If your waiver was approved after October 9, this message does not apply to you, and the charge is correct; please contact me directly if you believe otherwise.

Sincerely,
Rebecca Tran
Student Accounts Specialist, Office of Student Accounts (Bursar)
bursar@lakeside.edu | (555) 284-3190
"""),
    dict(key="refund_q", parent="refund", quote=[2, 3], slug="lu-ship-refund-flexpay-question",
         date="2026-10-28 18:22", sender="arjun", to=["rebecca"], subject=None,
         body="""\
Dear Ms. Tran,

Thank you for the explanation. I'm one of the affected students (online ADSc, part-time) and I'll send the form this week.

One follow-up question. Because the insurance charge made my Autumn bill higher than expected, I enrolled in LU FlexPay and paid the $45 setup fee. If the $1,276 had not been charged, I would probably have paid in full and not needed the plan. Will the $45 FlexPay setup fee also be refunded together with the insurance fee?

Best regards,
Arjun Bhattacharya
Student ID on file
"""),
    dict(key="refund_a", parent="refund_q", quote=[1, 2], slug="lu-ship-refund-flexpay-answer",
         date="2026-10-29 10:05", sender="rebecca", to=["arjun"], subject=None,
         body="""\
Dear Arjun,

Thank you for asking before sending the form; it saves a step for both of us.

I'm sorry to say that the answer is no: the $45 FlexPay setup fee is not refundable, including in your situation. The setup fee covers enrolling the plan for the quarter, and once a plan is active we cannot reverse it. What will change is the size of your installments. When the $1,276 is removed, the remaining balance on your FlexPay plan drops, so your second and third installments will be smaller. Because you paid your first installment by card, the part of the insurance fee already collected will go back to that card within 15 business days.

Please still include your FlexPay plan number on the refund form so that we adjust the installments correctly.

Kind regards,
Rebecca Tran
Student Accounts Specialist (Bursar)
"""),
    dict(key="f1", slug="f1-winter-registration-reminders", date="2026-11-02 11:40", sender="fatima", to=["f1"],
         subject="F-1 students: Winter registration, full-time enrollment and CPT planning",
         body="""\
Dear F-1 students in SCDS,

With Winter registration opening on Monday, November 16, here are the immigration points to keep in mind. Please read to the end; the last section is new this year.

Full-time enrollment. F-1 students must enroll full-time, meaning 8 or more units, in Autumn, Winter and Spring. Dropping below 8 units without prior authorization from our office can put your status at risk, so please talk to me before you drop a course. Summer may be a vacation quarter once you have completed three consecutive full-time quarters.

Online courses. Most MS students will not be affected, but remember that the online ADSc variant does not qualify for an I-20. If you take an online section as part of an in-person program, that is fine within the usual limits; just check with us if more than one of your courses in a quarter is online.

Health insurance. International F-1 students may not waive LU-SHIP, so the insurance charge on your statement is correct.

Work. On-campus jobs, including TA and RA positions, are limited to 20 hours per week in total while classes are in session.

CPT for summer internships. Many of you are already interviewing for Summer 2027. Curricular Practical Training becomes available after three consecutive quarters of full-time enrollment, so first-year students who started in Autumn 2026 can use it from Summer 2027. Each quarter of CPT requires enrollment in ADS 695 Internship (1 unit, S/U; it does not count toward your 48 units). Your request, with an offer letter stating the job title, dates, hours, address and supervisor, must reach the International Student Office at least 15 business days before your start date.

Winter travel. If you plan to travel abroad over the winter closure, have your I-20 signed for travel before Friday, December 18. Our office is closed from December 24 to January 1 with the rest of the campus.

Drop-in advising is available in FND 160, and you can reach us at intl-students@lakeside.edu or (555) 284-3170.

Best regards,
Fatima Al-Sayed
International Student Advisor, International Student Office, FND 160
"""),
    dict(key="hold", slug="registrar-registration-hold-notice", date="2026-11-09 09:15", sender="luis", to=["students"],
         subject="Registrar notice: unpaid Autumn balances and Winter 2027 registration holds",
         body="""\
Dear students,

This is a notice from the Office of the Registrar about Winter 2027 registration, which opens on Monday, November 16, 2026.

Students who still have an unpaid Autumn 2026 balance after Friday, November 13, 2026 will receive a registration hold. A registration hold blocks Winter 2027 registration until the balance is paid. It does not affect your current classes, grades or access to Canvas, but you will not be able to add, drop or register for any Winter course while it is on your record.

Holds are lifted within 1 business day of payment. You do not need to contact us after paying; the hold is removed automatically once Student Accounts posts your payment. Please keep in mind that popular Winter sections, including ADS 633 and several electives, fill quickly in the first days of registration.

What you should do this week:
- Log in to the student portal and open "Account Summary" to check whether you have a balance.
- If you do, pay it by November 13, or contact Student Accounts at bursar@lakeside.edu about your options.
- If you are on LU FlexPay, make sure your installment due this month has been paid.

A late payment fee of $150 applies to Autumn balances that were not paid by the tuition due date, in addition to any hold. If you believe a charge on your account is wrong, write to bursar@lakeside.edu before November 13 so that it can be reviewed; disputed charges under review do not trigger a hold.

Registration questions can go to registrar@lakeside.edu. Questions about charges and payments should go to Student Accounts.

Regards,
Luis Ortega-Brandt
Assistant Registrar, Office of the Registrar
registrar@lakeside.edu
"""),
    dict(key="plan", slug="advising-winter-spring-plan", date="2026-11-18 20:30", sender="meilin", to=["park"],
         subject="Advising question: taking ADS 631 in Winter?",
         body="""\
Dear Dr. Park,

I am a first-year MLE student (full-time, F-1) and you are listed as the MLE track lead, so I hope it is all right to ask you about my plan for the rest of the year.

I would like to take ADS 631 Deep Learning in Winter instead of Spring, because I am applying for summer internships in computer vision and I think having deep learning on my transcript early would help. My Winter plan would then be ADS 530, ADS 631, ADS 545, ADS 633 and ADS 590. Is this possible?

I am also curious about the accelerated option. If I take 12 or more units every quarter, could I finish in four quarters, at the end of Summer 2027? Finishing earlier would save me a quarter of living costs in Harbor City, which matters for my family's budget.

If it is easier to discuss this in person, I can come to your office in QEB 318 at any time that suits you.

Thank you for your time,
Mei-Lin Zhou
MS-ADS, MLE track (first year)
"""),
    dict(key="plan_a", parent="plan", quote=[2, 3], slug="advising-winter-spring-plan-answer",
         date="2026-11-19 12:10", sender="park", to=["meilin"], subject=None,
         body="""\
Dear Mei-Lin,

Of course, that is exactly what track leads are for.

Unfortunately ADS 631 in Winter will not work: its prerequisite is ADS 530, and you will be taking ADS 530 in Winter. Concurrent enrollment is not allowed for this prerequisite, because the first weeks of ADS 631 assume regularization and model evaluation. I recommend the standard sequence. In Winter take ADS 530, ADS 545, ADS 633 and ADS 590 (10 units, which keeps you full-time for your F-1 status). In Spring take ADS 631, ADS 632, one elective and ADS 590 (12 units). For the elective, ADS 620 on large language models or ADS 614 on reinforcement learning both fit the MLE rule that electives must be at the 600 level. If computer vision is your focus, ADS 612 in Summer is the one to plan around; it needs ADS 631 first, which you will have by then.

Recruiters for summer roles understand that first-year students have not finished deep learning yet. Projects matter more than course titles; your ADS 633 pipeline project is a good thing to talk about.

On the accelerated plan: full-time students can finish in four quarters, Autumn through Summer, by taking 12 or more units every quarter, with the approval of the associate director, Dr. Wieczorek. It is not available on the thesis option. In your case, though, the timing no longer works: ADS 634, which every MLE student needs, is offered only in Autumn, and you are not taking it this quarter. A four-quarter finish would therefore leave ADS 634 missing, so I suggest you stay on the five-quarter plan and take ADS 634 with ADS 698B next Autumn.

Best,
Dr. Jun-ho Park
Assistant Professor; MLE Track Lead
"""),
    dict(key="digest", slug="ads-digest-november-2026", date="2026-11-20 12:00", sender="dana", to=["students"],
         html=True, subject="ADS Digest | November 2026: Showcase, Convocation and end-of-quarter dates",
         body="""\
ADS Digest, November 2026

The monthly newsletter of the MS in Applied Data Science. Read it online, or skim the headings below.

## End of the Autumn quarter

Thanksgiving break is Thursday and Friday, November 26 and 27 (no classes). Autumn instruction ends Friday, December 4, and final exams run from Monday, December 7 to Friday, December 11. Graduate Student Services is closed with the rest of campus for the winter closure, December 24 to January 1.

## Autumn Capstone Showcase, Thursday, December 10

Eleven MLE teams finishing ADS 698B and the ADSc teams finishing ADS 699 will present their projects in the MDC atrium from 1:00 pm to 5:00 pm. The Showcase is open to the public, and sponsors judge the Sponsor's Choice Award. First-year students: this is the best way to see what your own capstone could look like. Come between classes; no registration needed.

## Winter Convocation, Saturday, December 12

Our December ceremony for students finishing in Summer or Autumn starts at 2:00 pm in MDC 110, with a reception in the atrium afterwards. Graduates received their guest information by e-mail last week.

## From the community

- The Lakeside Data Science Society hosts a Kaggle night every other Thursday in MDC 204; pizza appears at 6:30 pm.
- The Data Help Desk in Birchwood Library (BWL 110) is open Monday to Thursday from 10:00 am to 4:00 pm, staffed by second-year MS students. It gets busy in week 10.
- Dr. Lucía Fernández-Oyelaran's Geospatial Data Science class mapped tree canopy across Harbor City neighborhoods; their maps are on display on the MDC second floor.

## Looking ahead to Winter

Winter instruction begins Monday, January 4, 2027. Winter registration is open now; if you see a hold on your account, read the registrar's notice of November 9.

Questions? Reply to this e-mail or visit us in FND 140.

Dana Whitcombe, Graduate Program Coordinator
"""),
    dict(key="beacon_eoq", slug="beacon-end-of-quarter-and-winter-allocations", date="2026-12-01 15:00",
         sender="colin", to=["beacon"], subject="Beacon: end-of-quarter cleanup, Winter allocations and holiday support",
         body="""\
Hello Beacon users,

As the Autumn quarter winds down, a few housekeeping items for the Beacon GPU cluster.

Scratch cleanup. We purge /scratch at the end of every quarter. Anything under /scratch older than 30 days will be deleted on Friday, December 18. Copy results you want to keep to your project directory or to your own storage before then. We cannot recover purged files.

Winter allocations. GPU-hour allocations reset at the start of each quarter. MS students receive 200 GPU-hours per quarter; students enrolled in ADS 631, ADS 698A/698B or ADS 697 receive 400. The higher allocation is applied automatically from the class roster during the first week of the quarter, so there is nothing to request if you are registered in one of those courses. If your Winter work needs more than that, write to research-computing@lakeside.edu with a short justification and your advisor's name.

Holiday support. Beacon stays up during the winter closure (December 24 to January 1), but nobody from Research Computing will be watching the queue. Jobs that fail will not be restarted until January 4, and requests sent during the closure will be answered in the order received after we return.

Fair-share reminder. Please request only the GPUs your job actually uses. A job that asks for four GPUs and uses one blocks three of the cluster's 48 GPUs for everyone else, and the scheduler will lower your priority accordingly.

Thanks for a busy quarter: Beacon ran more than 41,000 jobs this Autumn.

Colin Marsh
Research Computing Manager
research-computing@lakeside.edu
"""),
    dict(key="okafor_eoq", slug="end-of-autumn-message-from-director", date="2026-12-07 08:30", sender="okafor",
         to=["students"], subject="End of Autumn: thank you, Showcase this Thursday, and course evaluations",
         body="""\
Dear students,

Finals week is here, and I want to take a moment before the rush to thank you for an energetic first quarter of the year. This Autumn we welcomed 112 new students into the program, 61 in Machine Learning Engineering and 51 in Analytics and Decision Science, and your questions in class, at office hours and at the Data Help Desk made this a lively place to work.

Please join us on Thursday, December 10 for the Autumn Capstone Showcase in the MDC atrium (1:00 pm to 5:00 pm). For our graduating students, Winter Convocation is on Saturday, December 12 at 2:00 pm in MDC 110. I look forward to hooding many of you, and to meeting your families.

One request: course evaluations close at 11:59 pm on Friday, December 11. We read every comment. Several changes this year, including more evening office hours for part-time students, came directly from your feedback last year. Please take ten minutes to complete yours for each course.

Winter instruction begins on Monday, January 4, 2027. My office hours (Tuesdays 2:00 pm to 3:30 pm, MDC 401) resume in the first week of Winter. The campus is closed from December 24 to January 1, and I encourage all of you to actually rest during that time.

With gratitude,
Dr. Miriam Okafor
Professor and Program Director, MS in Applied Data Science
"""),
    # ------------------------------------------------------------------ Winter 2027
    dict(key="winter", slug="winter-2027-first-week-reminders", date="2027-01-05 09:00", sender="dana",
         to=["students"], subject="Winter 2027: first-week reminders and dates to put in your calendar",
         body="""\
Dear students,

Happy new year, and welcome to Winter quarter. Instruction began yesterday, so here are the dates and tasks for the next few weeks.

THIS WEEK
- Winter tuition is due Friday, January 8. If you want to spread your payment over three installments, enroll in LU FlexPay by the same date; the setup fee is $45 per quarter.
- Graduate Student Services stays open until 7:00 pm on Wednesdays during the first two weeks (January 6 and January 13).

LATER THIS QUARTER
- Monday, January 18: Martin Luther King Jr. Day, no classes, offices closed.
- Friday, January 29: Capstone Studio project proposals are due for ADS 698A teams.
- Wednesday, February 10: Winter Tech and Analytics Fair (virtual, on Handshake).
- Monday, February 15: Presidents' Day, no classes.
- Friday, February 19: last day to withdraw from a Winter course with a W grade.
- Monday, February 22: Spring registration opens.

Please check your schedule against the add/drop deadline at the end of week 2; the exact date is in the academic calendar. After that, dropping a course means a W on your transcript, and refunds follow the tuition refund schedule.

Second-year students planning to graduate at the June ceremony: the graduation application is due in April, and we will send a reminder, but it does no harm to check your degree audit now.

ADS 590 continues on Fridays from 12:00 pm to 12:50 pm in MDC 110 for students in their first three quarters.

Have a great start to the quarter,
Dana Whitcombe
Graduate Program Coordinator
"""),
    dict(key="resumebook", slug="winter-fair-resume-book-deadline", date="2027-01-11 10:30", sender="natalie",
         to=["students"], subject="Winter Tech and Analytics Fair: resume book closes Friday, January 22",
         body="""\
Hi all,

The Winter Tech and Analytics Fair is coming up on Wednesday, February 10, from 12:00 pm to 4:00 pm. Unlike the Autumn fair, it is entirely virtual and runs on Handshake, which makes it a good option for online and part-time students. We expect 35 employers this year, several of them hiring for summer internships.

ACTION ITEM: the fair's resume book closes on Friday, January 22. To be included in the book we send to participating employers, upload your resume as a PDF to your Handshake profile by then. Recruiters use the book to invite students to private 15-minute video chats before the fair opens, so this step matters more than the fair itself for some companies. A Word document or a link to a website will not be picked up by the export; it has to be a PDF set as your default document.

Before you upload:
- Keep it to one page unless you have more than five years of experience.
- Put your track (MLE or ADSc) and your expected graduation term near the top.
- Link to one or two repositories that actually run, with a short README.

We have added extra 30-minute resume review appointments through Handshake for the weeks of January 11 and January 18, and drop-in hours continue on Wednesdays from 1:00 pm to 3:00 pm in FND 150. The ADS 590 session on Friday, January 22 covers virtual fair etiquette.

If you have questions about accommodations for the virtual fair, write to careers-ads@lakeside.edu.

Best,
Natalie Brennan-Cho
Director of Career Development
"""),
    dict(key="room530", slug="ads530b-room-change", date="2027-01-14 08:40", sender="park", to=["l530b"],
         cc=["sofia"], subject="ADS 530 B: new classroom from Tuesday, January 19 (QEB 240)",
         body="""\
Dear ADS 530 section B students,

As many of you noticed on Tuesday, the projector in MDC 120 failed again, and Facilities has told us that the replacement parts will not arrive this quarter.

Starting Tuesday, January 19, ADS 530 section B will meet in QEB 240 (Quayside Engineering Building, second floor) for the rest of the Winter quarter. Our meeting time does not change: Tuesdays and Thursdays from 9:00 am to 10:50 am. Today's class, Thursday, January 14, is still in MDC 120, and we will use the whiteboards.

Note that the printed class schedule and the course listing still show MDC 120. Please rely on this message and on the Canvas announcement instead.

QEB is at 40 Quayside Way, about eight minutes' walk from the Marlowe Data Science Center. If you have a class in MDC right before ours, plan for the walk; I will start at 9:05 am for the first week to make the transition easier.

Sofia Marchetti, our TA (copied), will keep her office hours where they are, and the Problem Set 2 due date (Friday, January 22) is unchanged.

See you in QEB 240 on Tuesday,
Dr. Jun-ho Park
Assistant Professor; instructor, ADS 530 section B
"""),
    dict(key="room530_q", parent="room530", quote=[1, 2], slug="ads530b-room-change-final-exam-question",
         date="2027-01-14 13:25", sender="meilin", to=["park"], cc=["sofia"], subject=None,
         body="""\
Dear Dr. Park,

Thank you for letting us know about the room change.

Does the final exam also move to QEB 240, or will it be back in MDC 120 or in another room? I am asking now because I am planning my week of finals with another exam, and the walk between buildings matters for me.

Also, will the midterm be in QEB 240 too? Some of us were not sure whether exams follow the classroom or are scheduled separately by the registrar, as they were for ADS 501 last quarter.

Best regards,
Mei-Lin Zhou
"""),
    dict(key="room530_a", parent="room530_q", quote=[1, 2], slug="ads530b-room-change-final-exam-answer",
         date="2027-01-14 17:02", sender="park", to=["meilin"], cc=["sofia", "l530b"], subject=None,
         body="""\
Dear Mei-Lin (and everyone, since others will wonder too),

Good question. Yes, the final exam will also be in QEB 240. The room is ours for the rest of the quarter, including finals week, so every remaining class meeting, the midterm and the final exam for section B are all in QEB 240. The exact time of the final will be announced on Canvas once the registrar publishes the exam schedule.

To answer the second part of your question: in this course exams follow the classroom, so you will not need to check a separate room list. If the registrar ever assigns a different room for the final, I will tell you on Canvas at least a week in advance, but I do not expect that to happen.

Best,
Dr. Park
"""),
    dict(key="leaders", slug="deans-emerging-leaders-award", date="2027-01-20 11:00", sender="theo", to=["students"],
         subject="New this year: Dean's Emerging Leaders Award ($2,500), deadline March 1",
         body="""\
Dear MS students,

I am delighted to announce a new award for 2026-27: the Dean's Emerging Leaders Award.

The Dean's Emerging Leaders Award is a one-time award of $2,500 for student leaders. It is open to students who have led a student organization, a hackathon team or a community data project. To apply, submit a one-page leadership statement plus one faculty nomination. The deadline is March 1, 2027.

The leadership statement should describe what you led, what changed because of it and what you learned about working with people. Numbers are welcome, but we are more interested in decisions you made and how you handled setbacks. The faculty nomination is a short letter (a paragraph is fine) sent directly to me by the faculty member; it should not come through you.

This award was created by Dean Camille Ashworth to recognize the work students do outside the classroom, for example running the Lakeside Data Science Society, organizing HarborHack, or volunteering with Data for Harbor City.

Two reminders for awards with earlier deadlines:
- The Lakeside Women in Data Science Scholarship ($6,500) closes on February 1, 2027; apply through the scholarship portal on the scholarships page.
- The Civic Data Fellowship ($8,000 plus a paid 10-week summer placement with the Harbor City Office of Data and Innovation) closes on March 15, 2027.

As always, the total institutional scholarship support you receive may not exceed the tuition you are charged.

Best wishes,
Theo Lindgren
Scholarships and Financial Aid Coordinator, SCDS
"""),
    dict(key="leaders_q", parent="leaders", quote=[2, 3], slug="deans-emerging-leaders-award-question",
         date="2027-01-21 22:14", sender="jordan", to=["theo"], subject=None,
         body="""\
Hi Theo,

Thanks for the announcement, this is great news for a lot of people in LDSS.

Two questions. I am the president of the Lakeside Data Science Society this year, so I think I qualify, but several of our committee members co-organize HarborHack: would a co-organizer count as having "led" something? And does the faculty nomination have to come from a professor, or can it come from a lecturer or an adjunct who knows our work? One of our most involved faculty supporters is Dr. Bello, who is a lecturer.

Thanks,
Jordan Ellery
President, Lakeside Data Science Society
"""),
    dict(key="leaders_a", parent="leaders_q", quote=[2], slug="deans-emerging-leaders-award-answer",
         date="2027-01-22 09:40", sender="theo", to=["jordan"], subject=None,
         body="""\
Hi Jordan,

Yes on both counts.

Co-organizers of HarborHack qualify if they had real responsibility for part of the event, such as sponsors, judging or logistics. The statement should make clear which part they owned.

The nomination can come from any SCDS faculty member who knows your work, including lecturers and adjunct faculty, so Dr. Bello is an excellent choice. Please ask your nominators to send their paragraph straight to t.lindgren@lakeside.edu with "Emerging Leaders nomination" and the student's name in the subject line, by March 1.

Feel free to share this with your committee.

Best,
Theo
"""),
    dict(key="proposal", slug="capstone-proposal-deadline-extended", date="2027-01-25 16:30", sender="thornbury",
         to=["l698a"], cc=["capstone"], subject="ADS 698A: project proposal deadline extended to Friday, February 5",
         body="""\
Dear Capstone Studio I teams,

The project proposal deadline for the Winter 2027 Capstone Studio is extended from Friday, January 29 to Friday, February 5, 2027 at 11:59 pm. The extension applies to all ADS 698A teams, whatever your sponsor.

The reason is simple: several sponsor data-use agreements were delayed in legal review on the sponsors' side, and I do not want anyone writing a proposal around data they have not seen. Four of our eleven sponsors have now signed; the rest have promised signatures by the end of this week.

What this means for you:
- Use the extra week to look at the actual data once your agreement is signed, and make sure your proposal's baseline is realistic.
- If your team is proposing its own project rather than a sponsored one, your faculty mentor's written approval is now also due by February 5.
- Until your agreement is signed, do not copy any sponsor data to laptops or to Beacon, and never paste it into public AI tools. Use the LU Copilot workspace if you need an assistant.

Nothing else in the studio schedule moves. We still meet on Thursdays from 3:30 pm to 6:20 pm in BWL 302, and this Thursday's session will be a proposal clinic: bring a one-paragraph problem statement and I will give each team five minutes of feedback.

If your sponsor contact has gone quiet, tell me by Wednesday and I will follow up with them directly.

Best,
Dr. Benjamin Thornbury
Professor of Practice; Capstone Studio Director
capstone-ads@lakeside.edu
"""),
    dict(key="maint", slug="beacon-gpu-cluster-maintenance", date="2027-02-03 10:00", sender="colin", to=["beacon"],
         cc=["park"], subject="Planned outage: Beacon GPU cluster down February 13-14 for storage upgrade",
         body="""\
Dear Beacon users,

The Beacon GPU cluster will be unavailable from Saturday, February 13 at 8:00 am until Sunday, February 14 at 6:00 pm for a storage upgrade. During this window you will not be able to log in, submit jobs or read your files on the cluster.

Why: the shared file system that holds /home, /projects and /scratch is running out of space and has become the main bottleneck for training jobs. We are replacing it with new storage that roughly triples capacity and should make data loading noticeably faster, especially for image data sets.

What happens to your jobs: jobs that are still queued at 8:00 am on February 13 will be cancelled, and running jobs will be stopped at that time. Nothing will be restarted automatically after the upgrade. Please plan your work so that long runs finish before Saturday morning, and save checkpoints regularly.

What to do before the outage:
- Check the scheduler's time estimate for anything you submit on Thursday or Friday; the scheduler will not start a job that cannot finish before 8:00 am on Saturday.
- Copy any results you need over the weekend to your own machine by Friday evening.
- Do not store anything you cannot afford to lose only in /scratch. Files in /home and /projects will be migrated; /scratch will come back empty.

Course impact: Dr. Park (copied) has agreed that ADS 631 Assignment 3 is extended by 48 hours; he will confirm the new due date to his class. Other instructors who rely on Beacon this quarter have been informed.

We will send a short message when the cluster is back. If something is still broken after 6:00 pm on Sunday, write to research-computing@lakeside.edu.

Thank you for your patience,
Colin Marsh
Research Computing Manager
"""),
    dict(key="maint_631", parent="maint", quote=[1, 3], slug="beacon-maintenance-ads631-assignment3",
         date="2027-02-03 14:45", sender="park", to=["l631"], subject="Re: Planned outage: Beacon GPU cluster down February 13-14 for storage upgrade",
         body="""\
Dear ADS 631 students,

Forwarding the essentials from Colin's message below, with the course details.

Because of the Beacon outage on the weekend of February 13 and 14, Assignment 3 (fine-tuning a vision transformer) is extended by 48 hours. It was due on Tuesday, February 16 at 11:59 pm; the new deadline is Thursday, February 18 at 11:59 pm. Late days can still be used on top of the new deadline.

My honest advice is to treat the old deadline as your real one. The cluster will be busy on Sunday evening and Monday as everyone resubmits, so get your main training runs done this week and next week before Saturday morning.

Checkpoints are required for this assignment anyway, so make sure yours are saved to /projects, not /scratch, which will come back empty.

Dr. Park
"""),
    dict(key="maint_done", parent="maint", quote=[1, 2], slug="beacon-back-online-after-upgrade",
         date="2027-02-14 17:35", sender="colin", to=["beacon"], cc=["park"],
         subject="Re: Planned outage: Beacon GPU cluster down February 13-14 for storage upgrade",
         body="""\
Dear Beacon users,

Good news: the storage upgrade is finished and Beacon is back online as of 5:30 pm today, Sunday, February 14, half an hour ahead of schedule. You can log in and submit jobs again.

What changed for you:
- /home and /projects were migrated in full. Please spot-check a few files you care about and tell us if anything is missing.
- /scratch is new and empty, as announced.
- The new storage roughly triples capacity. In our tests, data loading for image data sets was about twice as fast as before.

As expected, the queue is already long. Jobs submitted tonight are being scheduled in the normal fair-share order; please do not submit the same job several times to jump the queue, because duplicates only slow everyone down.

ADS 631 students: the 48-hour extension of Assignment 3 stands, as Dr. Park confirmed to your class.

If you see errors that mention the file system, or a job that ran before the upgrade now fails with a path error, write to research-computing@lakeside.edu with the job ID. Our team is monitoring the cluster tonight and tomorrow.

Thank you for your patience this weekend,
Colin Marsh
Research Computing Manager
"""),
    dict(key="midterm", slug="ads530b-midterm-review", date="2027-02-08 09:20", sender="sofia", to=["l530b"],
         subject="ADS 530 B midterm: review session Tuesday evening + what to bring",
         body="""\
Hi everyone,

The ADS 530 section B midterm is this Thursday, February 11, during our usual class time (9:00 am to 10:50 am) in our new room, QEB 240. It covers weeks 1 to 5: linear and logistic regression, regularization, cross-validation, and model evaluation.

I am running a review session on Zoom on Tuesday, February 9 from 6:30 pm to 8:00 pm. It will be recorded for anyone who cannot attend. To make it useful, please send me the topics or practice problems you want covered by Tuesday at 12:00 pm, either by e-mail or in the Canvas discussion thread. I will go through the most requested ones first.

What to bring on Thursday:
- Your student ID card.
- A pen or pencil; the exam is on paper.
- One double-sided, handwritten page of notes (letter size).
- No calculators are needed; no laptops or phones are allowed.

The exam is closed book apart from your notes page, and AI tools are not allowed (like all exams in the program). Dr. Park has posted last year's midterm with solutions on Canvas under "Exam practice".

My regular office hours stay the same: Mondays from 10:00 am to 11:30 am at the Data Help Desk in BWL 110. This Wednesday I am adding an extra hour, 4:00 pm to 5:00 pm, in the same place.

Good luck with your preparation,
Sofia Marchetti
TA, ADS 530 section B
"""),
    dict(key="harborhack", slug="harborhack-2027-registration", date="2027-02-17 19:00", sender="jordan",
         to=["students"], cc=["ldss"], subject="HarborHack 2027 (Feb 27-28): register your team by Monday",
         body="""\
Hi everyone,

HarborHack, the program's student hackathon organized by the Lakeside Data Science Society, is back on Saturday and Sunday, February 27 and 28, at the Marlowe Data Science Center. It is 24 hours of building, with food, mentors and prizes totaling $6,000.

This year there are two tracks:
- a civic data track, with data sets from the Harbor City Office of Data and Innovation, including transit ridership and 311 requests;
- a generative AI track, where you build something useful with open models.

Teams have up to 4 members, and you can register solo; we will match solo participants into teams at the opening session on Saturday morning. MLE and ADSc students work well together, and first-year students have won prizes before.

ACTION ITEM: register your team by Monday, February 22 at 11:59 pm using the form linked from the LDSS page. We need final numbers for food and for the building reservation, so we cannot accept walk-ins this year.

Judges include alumni from Brightline Logistics, Pinecrest Bank and Meridian Sports Group, plus two faculty members. Projects are judged on usefulness, technical quality and the final three-minute demo.

Note that the hackathon does not use the Beacon cluster. Bring your own laptop; we will provide cloud credits for the generative AI track.

Questions? Reply to this message or write to ldss@lakeside.edu.

See you there,
Jordan Ellery
President, Lakeside Data Science Society
"""),
    dict(key="residency", slug="advising-adsc-residency-weekend", date="2027-02-24 21:05", sender="arjun",
         to=["vasquez"], subject="Planning question: ADS 699 and the Residency Weekend (online ADSc)",
         body="""\
Dear Dr. Vasquez-Hartley,

I am a first-year part-time student in the online ADSc variant, and I live about five hours from Harbor City. I am trying to plan ahead for the capstone, because I will need to arrange time off work.

Could you tell me when I would realistically take ADS 699, given that I take one or two courses per quarter? I also understand there is a Residency Weekend. How long is it, when does it happen, and does the program cover travel or lodging?

Finally, is it true that I could complete the entire track online, including electives, or do some electives only run in person? I am especially interested in ADS 650 Marketing Analytics and ADS 570 Bayesian Methods.

I know this is a long way off, but my employer asks for leave requests about six months ahead, so anything you can tell me now helps.

Thank you,
Arjun Bhattacharya
MS-ADS, ADSc online (part-time)
"""),
    dict(key="residency_a", parent="residency", quote=[1, 2], slug="advising-adsc-residency-weekend-answer",
         date="2027-02-25 13:40", sender="vasquez", to=["arjun"], subject=None,
         body="""\
Dear Arjun,

Planning this early is wise, so thank you for writing.

ADS 699 requires ADS 641 and at least 32 completed units, and it is offered in Autumn and Spring. At a pace of 4 to 6 units per quarter, most part-time students reach 32 units somewhere between their sixth and eighth quarter, so for you the realistic options are Spring 2028 or Autumn 2028. Once you have your units mapped out, we can pick the one that suits your work calendar.

The Residency Weekend is a two-day, Friday-Saturday event in Harbor City during your ADS 699 quarter. It is where online teams meet their sponsor in person and present their interim findings. The program does not cover travel or lodging: travel is at the student's expense. The dates are announced at the start of each ADS 699 quarter, so you will know them at least ten weeks ahead.

And yes, part-time ADSc students may complete the entire track online; there is no limit on online sections for you. Hybrid sections, which you join remotely, count as well. Not every elective has an online or hybrid section every quarter, so check the class schedule when you plan each quarter.

With best wishes,
Dr. Elena Vasquez-Hartley
Associate Professor; ADSc Track Lead
"""),
    dict(key="ambassadors", slug="admitted-student-ambassadors", date="2027-03-02 13:00", sender="priscilla",
         to=["students"], subject="Be a student ambassador for admitted students (2027 entry)",
         body="""\
Dear current students,

Admissions decisions for the Priority round go out by March 12, and every year the most convincing voices for admitted students are yours. We are recruiting student ambassadors for the 2027-entry cycle and would love your help.

Ambassadors do three things, and you can choose any of them:
- answer questions from admitted students in a moderated online forum (about one hour per week in March and April);
- join a 45-minute virtual panel about life in the program, on Thursday, March 25 or Thursday, April 8, at 5:30 pm;
- give a short tour of the Marlowe Data Science Center on Admitted Student Day, Friday, April 9.

We especially need part-time, online ADSc and international students, because admitted students in those situations often have questions that only a current student can answer honestly. We also welcome students from both tracks.

Please be honest in your answers. Do not promise things on our behalf, and refer any question about admission decisions, scholarships or visas to our office. Admitted students considering an I-20 should be sent to the International Student Office.

To sign up, reply to this e-mail by Friday, March 12 with your name, track, whether you study full-time or part-time, and which of the three activities you would like to do. Ambassadors receive a $50 bookstore gift card as a thank-you, and a letter of appreciation on request.

Thank you for helping us welcome the next class,
Priscilla Vandermeer
Director of Graduate Admissions
Graduate Admissions, FND 210 | ads-admissions@lakeside.edu | (555) 284-3120
"""),
    dict(key="spring_petitions", slug="spring-2027-petitions-and-track-changes", date="2027-03-03 10:15",
         sender="wieczorek", to=["students"],
         subject="Spring 2027: overload petitions, independent study contracts and last call for track changes",
         body="""\
Dear students,

As associate director I handle several petitions that are tied to the start of the quarter. To avoid a last-minute rush in April, here is what to send me and when.

Track changes. Students who entered in Autumn 2026 are now in their second quarter. The rule is one track change per student, by petition, no later than the add/drop deadline of your third enrolled quarter. For most of you that is the Spring add/drop deadline, Friday, April 9, 2027. If you are considering a change, please come and see me before spring break rather than after, because course planning for the new track takes a conversation, not just a form.

Overload petitions. Taking more than 16 units in a quarter requires a petition. You need a cumulative GPA of 3.50, the maximum with approval is 20 units, and units above 16 are billed per unit on top of the flat rate. Students on academic probation are capped at 12 units and cannot petition for an overload.

Independent study. If you plan to take ADS 680 in Spring, your learning contract, signed by your faculty supervisor, is due by the Spring add/drop deadline. I coordinate ADS 680, so send the signed contract to me.

Accelerated plan. First-year MLE students who hope to finish in four quarters should talk to me before Summer registration opens on April 19, since the plan needs my approval. The plan requires 12 or more units every quarter and is not compatible with the thesis option.

My office hours are Thursdays from 10:00 am to 11:30 am in MDC 403. During weeks 10 and 11 I will add Tuesday hours at the same time.

Best regards,
Dr. Tomasz Wieczorek
Associate Professor and Associate Director; chair of the Academic Standards Committee
"""),
    dict(key="final530", slug="ads530b-final-exam-review", date="2027-03-04 11:30", sender="sofia", to=["l530b"],
         subject="ADS 530 B: final exam review and last office hours",
         body="""\
Hi everyone,

We are almost at the end of the quarter. Here is how I can help you prepare for the ADS 530 section B final exam.

Review session. I will hold a final exam review on Zoom on Wednesday, March 10 from 6:30 pm to 8:00 pm. Like the midterm review, it will be recorded. Please send me your requested topics by Monday, March 8 at 12:00 pm. So far the most requested topics are tree ensembles, the bias-variance trade-off and clustering evaluation.

Where the exam is. As Dr. Park announced in January, the final is in QEB 240, our classroom for the rest of the quarter, not in MDC 120. The time will be posted on Canvas. Please double-check before you leave home, and give yourself time for the walk to Quayside Way if you are coming from another building.

What is allowed. The rules are the same as for the midterm: one double-sided handwritten page of notes, your student ID, and a pen. No laptops, phones or AI tools.

Last office hours. My final regular office hours are on Monday, March 8 from 10:00 am to 11:30 am at the Data Help Desk in BWL 110. I will also hold an extra session on Thursday, March 11 from 1:00 pm to 3:00 pm in the same place.

Problem Set 5 grades will be on Canvas by Friday, March 5. If you think something was graded incorrectly, e-mail me within one week of the grade being posted.

Thank you for a great quarter; it has been a pleasure being your TA.

Sofia Marchetti
TA, ADS 530 section B
"""),
    dict(key="spring_checklist", slug="spring-2027-checklist", date="2027-03-08 09:00", sender="dana", to=["students"],
         subject="Spring 2027 checklist: tuition, graduation applications and Summer registration",
         body="""\
Dear students,

Winter instruction ends this Friday, March 12, and final exams run from March 15 to 19. Before everyone scatters for spring break (March 22 to 26), here is the checklist for the start of Spring.

ACTION ITEMS
- Spring instruction begins Monday, March 29.
- Spring tuition is due Friday, April 2. FlexPay enrollment closes the same day.
- The Spring add/drop deadline is Friday, April 9. This is also the last day to choose the S/U option for an elective and to file a track-change petition if Spring is your third quarter.
- Students finishing in Spring or Summer who want to walk at the June Commencement must submit the graduation application by Friday, April 16. No late applications are accepted for the printed program.
- Summer registration opens Monday, April 19. Remember that Summer is always charged per unit, even for full-time students ($1,245 per unit this year).

Commencement is on Saturday, June 12, and the Spring Capstone Showcase is on Thursday, June 10. We will send details to graduation candidates in May.

If you are thinking about a leave of absence for Spring, the request must reach us by the add/drop deadline of the first quarter of the leave. F-1 students must consult the International Student Office first. Not enrolling in Summer does not require a leave.

Good luck with finals,
Dana Whitcombe
Graduate Program Coordinator
"""),
    # ------------------------------------------------------------------ Spring 2027
    dict(key="guest", slug="ads620-guest-lecture-nwosu", date="2027-04-12 14:10", sender="raghunathan",
         to=["l620"], cc=["students"], attach="guest",
         subject="Guest lecture in ADS 620: \"Evaluating RAG Systems in Production\" (Thursday, April 22)",
         body="""\
Dear ADS 620 students, and colleagues on the ads-students list,

I am very pleased to announce that Dr. Amara Nwosu, Head of Applied AI at Tidewater Analytics, will give a guest lecture titled "Evaluating RAG Systems in Production" in ADS 620 on Thursday, April 22, 2027 at 4:30 pm in MDC 110.

Dr. Nwosu leads the team that builds and monitors retrieval-augmented generation systems for Tidewater's clients. Her talk will cover how to build an evaluation set that reflects real user questions, which retrieval and answer-quality metrics were worth tracking once the systems were live, and how her team catches regressions after a model or index update. She has promised stories about failures as well as successes.

ADS 620 students: the lecture replaces our regular Thursday session, so attendance is expected, and the Week 4 reading response should connect the talk to one of the evaluation papers we have read.

Other MS students are welcome to attend if they RSVP to me (p.raghunathan@lakeside.edu) by Monday, April 19. Seats in MDC 110 are limited, and ADS 620 students come first, so I will confirm your place by April 20. Please put "Nwosu RSVP" in the subject line.

A calendar file for the lecture is attached.

Best regards,
Dr. Priya Raghunathan
Assistant Professor, School of Computing and Data Sciences
"""),
    dict(key="teams", slug="capstone-team-formation-summer-2027", date="2027-05-03 09:45", sender="thornbury",
         to=["mle1"], cc=["capstone"], subject="Summer 2027 Capstone Studio I: team roster and project ranking due May 21",
         body="""\
Dear first-year MLE students,

If you plan to take ADS 698A Capstone Studio I in Summer 2027, it is time to form your team and choose projects.

ACTION ITEM: by Friday, May 21, 2027, submit a team roster of 3 to 5 students and a ranked list of three sponsor projects via the Capstone Team Form (linked from the Capstone Studio page). Only one member per team submits the form; everyone on the roster must confirm by clicking the link in the automatic e-mail that follows.

Students who do not have a team by May 21 are not left out. They will be assigned to a team by June 4, taking into account the project preferences they submit on the individual version of the form. Please do submit that individual form if you have no team, so we know your interests.

This Summer's sponsor list is on the Capstone Studio page and includes projects from Veridian Robotics, Northwind Mutual Insurance, Lakeshore Energy Cooperative and Cobalt Harbor Health. Sponsor descriptions list the skills each team needs; a balanced team is more important than a team of friends.

A few reminders about the Studio itself:
- ADS 698A (2 units) meets on Thursdays from 3:30 pm to 6:20 pm in BWL 302 and continues into ADS 698B in Autumn 2027.
- You need ADS 530 and at least 24 completed units to enroll.
- Students who need CPT for a summer internship can combine it with ADS 698A; talk to the International Student Office early.
- Students on the thesis option do not take ADS 698A or ADS 698B.

I will hold an open Q&A about projects on Thursday, May 13 at 12:00 pm in BWL 302 and on Zoom.

Best,
Dr. Benjamin Thornbury
Professor of Practice; Capstone Studio Director
"""),
    dict(key="teams_q", parent="teams", quote=[1, 2], slug="capstone-team-formation-question",
         date="2027-05-04 18:30", sender="meilin", to=["thornbury"], subject=None,
         body="""\
Dear Dr. Thornbury,

A classmate and I would like to work together on the Veridian Robotics project, but so far we are only two. Can we submit the Capstone Team Form as a team of two? Or should we each submit the individual form and hope to end up together?

Also, we have an idea for our own project on drone inspection data. Can a self-proposed project be one of our three ranked choices? We have already spoken informally with a faculty member who might be willing to mentor it, but nothing is confirmed yet.

Finally, I will be on CPT for an internship this Summer. Is that a problem for the team, since I will be working during the day?

Thank you,
Mei-Lin Zhou
"""),
    dict(key="teams_a", parent="teams_q", quote=[1, 2], slug="capstone-team-formation-answer",
         date="2027-05-05 08:15", sender="thornbury", to=["meilin"], subject=None,
         body="""\
Dear Mei-Lin,

A team of two cannot be submitted as a final roster: MLE capstone teams must have 3 to 5 students. What you can do is submit the team form as a partial team of two by May 21 and tick "open to additional members". We then add one or more students with matching preferences when we assign unmatched students, which we finish by June 4. That keeps the two of you together.

A self-proposed project cannot appear on the ranked list of sponsor projects, but it is allowed as a separate route: you would need a faculty mentor to approve it by the project proposal deadline in Summer. If you want to pursue it, write to me with a half-page description, and still rank three sponsor projects as a fallback.

Your internship is not a problem. Many ADS 698A students work during the Summer, and the studio meets on Thursday afternoons. Just tell your future teammates early which hours you can commit, and put it in your team agreement.

Best,
Dr. Thornbury
"""),
    dict(key="cpt", slug="cpt-reminder-mei-lin-zhou", date="2027-05-10 11:20", sender="fatima", to=["meilin"],
         subject="Your Summer 2027 CPT request: deadline June 7",
         body="""\
Dear Mei-Lin,

Congratulations again on your internship offer from Veridian Robotics! I am writing because your start date is Monday, June 28, 2027, and I want to make sure your Curricular Practical Training authorization is in place well before then.

Your complete CPT request must reach the International Student Office by Monday, June 7, 2027. That is 15 business days before your start date, which is our minimum processing time. Please submit it together with your ADS 695 registration: CPT is only authorized for a quarter in which you are enrolled in ADS 695 Internship, so we cannot approve the request until the registration appears on your record.

Your request needs:
- the CPT request form, signed by you and by Natalie Brennan-Cho, who is the instructor of record for ADS 695;
- your offer letter, which must state your job title, start and end dates, hours per week, the work address and your supervisor's name;
- proof of your Summer 2027 registration in ADS 695.

You will have completed three consecutive full-time quarters by the end of Spring, so you will be eligible. Once approved, your CPT appears on page 2 of a new I-20, which I will e-mail to you. Do not start work, including unpaid onboarding, before the start date printed on that I-20.

If the offer letter is missing any of the required details, ask Veridian's recruiter for an updated letter now; that is the most common cause of delays.

Best regards,
Fatima Al-Sayed
International Student Advisor, FND 160
"""),
    dict(key="cpt_q", parent="cpt", quote=[2], slug="cpt-reminder-question", date="2027-05-11 09:05", sender="meilin",
         to=["fatima"], subject=None,
         body="""\
Dear Ms. Al-Sayed,

Thank you for the reminder; I will register for ADS 695 as soon as I can and send everything before June 7.

My offer letter says 40 hours per week for 10 weeks. Is full-time CPT allowed in the summer? I also plan to take ADS 698A in Summer, on Thursday afternoons, and Veridian has agreed that I can leave early on those days.

Will using CPT now affect my OPT after graduation? I am hoping to use OPT and then the STEM extension, and a friend in another program told me that any CPT reduces OPT.

Many thanks,
Mei-Lin
"""),
    dict(key="cpt_a", parent="cpt_q", quote=[2], slug="cpt-reminder-answer", date="2027-05-12 14:30", sender="fatima",
         to=["meilin"], subject=None,
         body="""\
Dear Mei-Lin,

Good questions, and the answers are reassuring.

Yes, full-time CPT is allowed in Summer. During Autumn, Winter and Spring, CPT is limited to part-time (up to 20 hours per week), but Summer is different. A 10-week, 40-hour internship is fine, and taking ADS 698A at the same time is common.

Your OPT is safe. Only 12 months or more of full-time CPT eliminates eligibility for OPT; one summer is far below that. After graduation you can apply for the 12-month post-completion OPT, and because the MS in Applied Data Science is STEM-designated, you can then apply for the 24-month STEM OPT extension.

A reminder that ADS 695 is 1 unit, graded S/U, and does not count toward the 48 units for your degree.

Best regards,
Fatima
"""),
    dict(key="ads695", slug="summer-internships-ads695-registration", date="2027-05-17 10:00", sender="natalie",
         to=["students"], subject="Summer internships: ADS 695 registration and what to report",
         body="""\
Hello everyone,

Congratulations to the many of you who have accepted summer internships! In the Class of 2025, 78% of students completed a summer internship, and this year's numbers look similar. A few things to sort out before you start.

Who needs ADS 695. ADS 695 Internship is a 1-unit course graded S/U. It is required for every F-1 student on CPT, in each quarter of CPT. Domestic students may also enroll if they want the internship on their transcript or if their employer requires academic credit. The unit does not count toward the 48 units for your degree, and because Summer is charged per unit, it costs $1,245 this year.

How to register. Summer registration is open now. ADS 695 needs instructor consent: fill in the short internship form on Handshake with your employer, supervisor and dates, and I will issue a permission number within two business days. F-1 students should do this right away, because the International Student Office cannot approve CPT until ADS 695 shows on your record.

What the course asks of you. ADS 695 runs online on Canvas. You post a short learning plan in the first two weeks of your internship, two brief reflections during the summer, and a final summary that your supervisor confirms. It is designed to take about an hour every other week.

Report your offer. Whether or not you enroll in ADS 695, please report your internship in Handshake under "Experiences". We use the anonymous totals for our outcomes reports, and it helps next year's students see where internships happen.

Have a great summer,
Natalie Brennan-Cho
Director of Career Development
"""),
    dict(key="commencement", slug="commencement-and-showcase-logistics", date="2027-05-24 10:00", sender="dana",
         to=["grads"], cc=["okafor"], subject="Graduation candidates: Commencement on June 12, regalia pickup and Showcase",
         body="""\
Dear graduation candidates,

Congratulations: you are almost there. Here is everything you need for the last weeks of the quarter and for Commencement.

Commencement. The SCDS master's hooding ceremony takes place on Saturday, June 12, 2027 at 10:00 am at the Lakeside Pavilion. Please arrive by 9:00 am for lineup; doors open for guests at 9:15 am. The ceremony lasts about two hours, and a reception follows on the Pavilion lawn.

Regalia pickup. Caps, gowns and hoods can be collected at Graduate Student Services, FND 140, on Tuesday, June 8 and Wednesday, June 9, from 10:00 am to 4:00 pm. Bring your student ID card. If you ordered regalia after May 17, you will collect it at the Pavilion on the morning of the ceremony instead.

Guest tickets. Each graduate receives four guest tickets. They will be e-mailed to you on June 1. Additional tickets are not available, but the ceremony is live-streamed.

Spring Capstone Showcase. Capstone teams finishing in Spring present at the Spring Capstone Showcase on Thursday, June 10, from 1:00 pm to 5:00 pm in the MDC atrium. It is open to the public, so invite your families, and sponsors will again judge the Sponsor's Choice Award. Teams set up from 12:00 pm.

Final requirements. To graduate you need 48 units, a cumulative GPA of 3.00, the minimum grades in the core and capstone, three quarters of ADS 590 with an S, and no outstanding Incomplete grades. If your degree audit shows anything unexpected, contact me this week, not in June.

We look forward to celebrating with you,
Dana Whitcombe
Graduate Program Coordinator
"""),
    dict(key="beacon_summer", slug="beacon-summer-allocations", date="2027-06-01 16:20",
         sender="colin", to=["beacon"], subject="Beacon: Summer allocations for ADS 698A teams and scratch cleanup",
         body="""\
Hello Beacon users,

A short update before the Summer quarter, which begins on Monday, June 21.

First, thank you for the feedback on the new storage that went in during the February outage. Data loading times for image workloads dropped by about 60%, and /projects has plenty of room again.

Summer allocations. Allocations reset at the start of every quarter, including Summer. Students enrolled in ADS 698A receive 400 GPU-hours per quarter, applied automatically from the roster in the first week; everyone else receives 200 GPU-hours. Capstone teams can pool their hours in a shared team project. To set up a team project, one member should write to research-computing@lakeside.edu with the team name, the members and the faculty lead.

Scratch cleanup. As usual, files under /scratch older than 30 days will be deleted at the end of the quarter, on Friday, June 11.

Sponsor data. Capstone data covered by a data-use agreement must live in a team project directory with restricted permissions, never in /scratch or a personal home directory. We set these permissions when we create the team project, so please ask us rather than changing them yourself.

Office hours. Research Computing holds drop-in hours for Beacon questions on Tuesdays from 2:00 pm to 3:00 pm during Summer, on Zoom.

Have a good end of Spring,
Colin Marsh
Research Computing Manager
"""),
]

ICS = """\
BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Lakeside University//ADS 620//EN
METHOD:PUBLISH
BEGIN:VEVENT
UID:2027-04-22-ads620-nwosu@lakeside.edu
DTSTAMP:20270412T191000Z
DTSTART:20270422T213000Z
DTEND:20270422T232000Z
SUMMARY:ADS 620 guest lecture: Evaluating RAG Systems in Production (Dr. Amara Nwosu)
LOCATION:MDC 110, Marlowe Data Science Center
ORGANIZER;CN=Dr. Priya Raghunathan:mailto:p.raghunathan@lakeside.edu
DESCRIPTION:Guest lecture by Dr. Amara Nwosu, Head of Applied AI, Tidewater Analytics. Other MS students: RSVP to p.raghunathan@lakeside.edu by April 19.
END:VEVENT
END:VCALENDAR
"""
ATTACHMENTS = {"guest": ("nwosu_guest_lecture_2027-04-22.ics", "calendar", ICS)}


def paragraphs(body: str) -> list[str]:
    """The body's paragraphs (blank-line separated), as written in the source."""
    return [block.strip("\n") for block in body.strip().split("\n\n")]


def wrap(block: str) -> str:
    """Wrap each source line of a paragraph at WIDTH, indenting continuation lines of list items."""
    out = []
    for line in block.splitlines():
        indent = "  " if line.startswith("- ") else ""
        out.append(textwrap.fill(line, WIDTH, subsequent_indent=indent, break_long_words=False,
                                 break_on_hyphens=False) if line.strip() else "")
    return "\n".join(out)


def address(key: str) -> str:
    name, email = PEOPLE[key]
    return f"{name} <{email}>"


def attribution(parent: dict) -> str:
    """One line, as mail clients write it: 'On Thu, Jan 14, 2027 at 8:40 AM, Name <mail> wrote:'."""
    dt = when(parent["date"])
    hour = dt.strftime("%I").lstrip("0")
    stamp = f"{dt.strftime('%a, %b')} {dt.day}, {dt.year} at {hour}:{dt.strftime('%M %p')}"
    return f"On {stamp}, {address(parent['sender'])} wrote:"


def html_of(body: str) -> str:
    """A simple newsletter HTML rendering of the plain-text body ('## ' headings, '- ' lists)."""
    parts = []
    blocks = paragraphs(body)
    parts.append(f"<h1 style=\"color:#12416b\">{html.escape(blocks[0])}</h1>")
    for block in blocks[1:]:
        lines = block.splitlines()
        if block.startswith("## "):
            parts.append(f"<h2 style=\"color:#12416b\">{html.escape(block[3:])}</h2>")
        elif all(line.startswith("- ") for line in lines):
            items = "".join(f"<li>{html.escape(line[2:])}</li>" for line in lines)
            parts.append(f"<ul>{items}</ul>")
        else:
            parts.append("<p>" + "<br>".join(html.escape(line) for line in lines) + "</p>")
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ADS Digest, November 2026</title></head>"
            "<body style=\"font-family:Georgia,serif;max-width:640px\">\n" + "\n".join(parts)
            + "\n<p style=\"font-size:small;color:#666\">Graduate Student Services (SCDS), Founders Hall FND 140, "
            "Lakeside University. You receive this newsletter as an MS-ADS student.</p>\n</body></html>\n")


def plain_newsletter(body: str) -> str:
    """The text part of the newsletter: '## ' headings become underlined lines."""
    out = []
    for block in paragraphs(body):
        if block.startswith("## "):
            title = block[3:]
            out.append(f"{title}\n{'-' * len(title)}")
        else:
            out.append(wrap(block))
    return "\n\n".join(out) + "\n"


def build() -> list[Path]:
    OUT.mkdir(parents=True, exist_ok=True)
    by_key = {m["key"]: m for m in MESSAGES}
    written = []
    for old in OUT.glob("*.eml"):  # the folder holds only this script's output
        old.unlink()
    for number, m in enumerate(sorted(MESSAGES, key=lambda m: m["date"]), start=1):
        day = m["date"][:10]
        tag = m["key"].replace("_", "")
        m["message_id"] = f"<{day}.{tag}.{number:03d}@lakeside.edu>"
        msg = EmailMessage(policy=policy.default)
        msg["From"] = address(m["sender"])
        msg["To"] = ", ".join(address(k) for k in m["to"])
        if m.get("cc"):
            msg["Cc"] = ", ".join(address(k) for k in m["cc"])
        msg["Date"] = format_datetime(when(m["date"]))
        parent = by_key.get(m.get("parent", ""))
        subject = m.get("subject") or ("Re: " + parent["resolved_subject"].removeprefix("Re: "))
        m["resolved_subject"] = subject
        msg["Subject"] = subject
        msg["Message-ID"] = m["message_id"]
        if parent:
            msg["In-Reply-To"] = parent["message_id"]
            msg["References"] = " ".join([*parent.get("references", []), parent["message_id"]])
            m["references"] = [*parent.get("references", []), parent["message_id"]]
        # body text: the message's own paragraphs, then (for replies) the attribution and quoted paragraphs
        if m.get("html"):
            text = plain_newsletter(m["body"])
        else:
            text = "\n\n".join(wrap(p) for p in paragraphs(m["body"])) + "\n"
        if parent:
            quoted = "\n>\n".join(
                "\n".join("> " + line if line else ">" for line in wrap(paragraphs(parent["body"])[i]).splitlines())
                for i in m["quote"])
            text += f"\n{attribution(parent)}\n{quoted}\n"
        m["text"] = text
        charset = m.get("charset", "utf-8")
        if charset != "utf-8":
            msg.set_content(text, charset=charset, cte="quoted-printable")
        else:
            msg.set_content(text)
        if m.get("html"):
            msg.add_alternative(html_of(m["body"]), subtype="html")
        if m.get("attach"):
            filename, subtype, content = ATTACHMENTS[m["attach"]]
            msg.add_attachment(content, subtype=subtype, filename=filename)
        if msg.is_multipart():
            msg.set_boundary(f"=_lakeside_{m['key']}_{number:03d}")
        path = OUT / f"{day}_{m['slug']}.eml"
        path.write_bytes(bytes(msg))
        written.append(path)
    return written


if __name__ == "__main__":
    files = build()
    print(f"wrote {len(files)} e-mails to {OUT}")
