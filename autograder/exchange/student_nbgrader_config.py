"""nbgrader settings for the students of the attnbook course on a JupyterHub.

Copy this file to /etc/jupyter/nbgrader_config.py on the hub (every student's server reads
it; or to ~/.jupyter/nbgrader_config.py of one student). nbgrader's Assignments tab then
lists the course's released notebooks, fetches them into the student's home and submits
them to the exchange, where the TA collects them (autograder/README.md, "JupyterHub with
nbgrader's exchange"). The values match autograder/nbgrader_config.py: the course id, the
exchange folder that the instructor and every student share (made once, as root:
`mkdir -p /usr/local/share/nbgrader/exchange; chmod 0777 ...exchange`), and the time
Validate gives a cell (the grader's, not nbgrader's 30 s).
"""

import os

c = get_config()  # noqa: F821

c.CourseDirectory.course_id = "attnbook"
c.Exchange.root = os.environ.get("ATTNBOOK_EXCHANGE", "/usr/local/share/nbgrader/exchange")
c.Execute.timeout = 300
c.Execute.interrupt_on_timeout = True
