@
Bquery