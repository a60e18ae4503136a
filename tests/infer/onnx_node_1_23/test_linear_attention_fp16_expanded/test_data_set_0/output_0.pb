@
Boutput