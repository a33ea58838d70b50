1 |w apple ice grape jam |c blue:2
1 |w grape date ice fig |c red:1
1 |w banana apple |c blue:1
-1 |w banana honey |c red:2
1 |w grape apple date fig |c red:3
-1 |w kiwi ice |c red:2
-1 |w kiwi grape honey |c red:3
-1 |w date banana jam elder |c green:2
1 |w lemon kiwi fig honey |c blue:2
-1 |w kiwi banana lemon |c green:1
-1 |w lemon grape |c green:3
1 |w honey apple grape fig |c green:1
1 |w cherry fig |c green:1
1 |w fig date cherry ice |c red:3
-1 |w elder ice honey lemon |c blue:2
-1 |w jam ice grape cherry |c red:2
1 |w lemon fig apple banana |c green:2
-1 |w kiwi lemon |c blue:1
1 |w elder jam fig cherry |c blue:1
-1 |w date elder kiwi |c blue:3
1 |w date apple |c red:2
1 |w lemon apple jam |c red:3
1 |w grape ice apple date |c blue:3
-1 |w honey ice kiwi |c red:1
-1 |w honey kiwi |c blue:1
-1 |w ice cherry grape lemon |c blue:1
-1 |w cherry ice |c green:1
1 |w fig grape ice |c blue:2
1 |w fig honey jam kiwi |c green:1
-1 |w jam cherry |c green:2
