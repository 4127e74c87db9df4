// thumbd-scroll: placeholder, see the issue.
print("thumbd-scroll")
