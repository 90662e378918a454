"""Background work on Django's Tasks API (the django-tasks backport; ``django.tasks`` from Django 6).

Every piece of background work is a task on a named queue (settings.CMS_TASK_QUEUES): scheduled publishing, mail,
webhook deliveries, import jobs, renditions and maintenance. ``manage.py worker`` runs them: one thread per queue, so
a long import never holds up publishing or mail, and any number of worker processes on any number of machines may
share the database backend. Work that must survive a dead worker keeps its truth in its own rows (an import job's
lease, a delivery's attempt): a task only says "go and look", so running one twice is harmless.
"""
