{filename:'V29.LBM',width:4,height:2,colors:[[0,0,0],[255,0,0],[0,255,0],[0,0,255],[255,255,0],[0,255,255]],cycles:[{reverse:0,rate:1536,low:1,high:3},{reverse:2,rate:2841,low:0,high:5},{reverse:3,rate:280,low:2,high:4},{reverse:4,rate:2000,low:0,high:3},{reverse:5,rate:8400,low:1,high:5},{reverse:0,rate:0,low:0,high:0}],pixels:[
0,1,2,3
,4,5,0,1]}
