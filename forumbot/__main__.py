import sys

from forumbot.cli import main

sys.exit(main())
