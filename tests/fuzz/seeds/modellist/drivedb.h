/*
 * An excerpt of smartmontools' drivedb.h (GPL-2.0-or-later) as Debian 12 ships it
 * (smartmontools 7.3): its version entry and the families it marks (SMR)
 * or (CMR), for tests whose output must not follow the installed copy.
 */
  { "VERSION: 7.3 $Id: drivedb.h 5319 2022-02-19 17:48:34Z chrfranke $",
    "-", "-",
    "Version information",
    ""
  },
  { "Toshiba P300 (CMR)", // tested with TOSHIBA HDWD120/MX4OACF0
    "TOSHIBA HDWD1(05|10|20|30)",
    "", "", ""
  },
  { "Toshiba P300 (SMR)", // tested with TOSHIBA HDWD240/KQ000A
    "TOSHIBA HDWD2[246]0",
    "", "", ""
  },
  { "Toshiba L200 (CMR)",
    "TOSHIBA HDW[JK]1(05|10)",
    "", "", ""
  },
  { "Toshiba L200 (SMR)", // tested with TOSHIBA HDWL110/JU000A. TOSHIBA HDWL120/JT000A
    "TOSHIBA HDWL1[12]0",
    "", "", ""
  },
  { "Seagate BarraCuda 3.5 (CMR)", // tested with ST1000DM010-2EP102/CC43,
      // ST3000DM008-2DM166/CC26, ST4000DM006-2G5107/DN02, ST10000DM0004-1ZC101/DN01,
      // ST12000DM0007-2GR116/DN01
    "ST(500DM009|1000DM010|2000DM00[67]|3000DM00[89]|4000DM006|6000DM004|"
       "8000DM005|10000DM0004|12000DM0007)-.*",
    "", "",
    "-v 200,raw48,Pressure_Limit "
    "-v 188,raw16 -v 240,msec24hour32"
  },
  { "Seagate BarraCuda 3.5 (SMR)", // tested with ST2000DM008-2FR102/0001,
      // ST4000DM004-2CV104/0001 (TRIM: no), ST4000DM005-2DP166/0001, ST8000DM004-2CX188/0001
    "ST(2000DM00[589]|3000DM007|4000DM00[45]|6000DM003|8000DM004)-.*",
    "", "",
    "-v 9,msec24hour32 " // ST4000DM004-2CV104/0001
    "-v 200,raw48,Pressure_Limit "
    "-v 188,raw16 -v 240,msec24hour32"
  },
  { "Seagate Archive HDD (SMR)", // tested with ST8000AS0002-1NA17Z/AR13
    "ST[568]000AS00[01][12]-.*",
    "", "", ""
  },
  { "Western Digital Blue (SMR)", // tested with WDC WD40EZAZ-00SF3B0/80.00A80 (TRIM: zeroed)
    "WDC WD(20|40|60)EZAZ-.*",
    "", "", ""
  },
  { "Western Digital Black (SMR)", // ticket #1313
    "WDC WD10SPSX-.*",
    "", "", ""
  },
  { "Western Digital Red (SMR)", // ticket #1313, tested with WDC WD60EFAX-68SHWN0/82.00A82
    "WDC WD[2346]0EFAX-.*",
    "", "", ""
  },
  { "Western Digital Blue Mobile (SMR)", // ticket #1313, tested with
      // WDC WD10SPZX-22Z10T0/01.01A01, WDC WD10SPZX-21Z10T0/02.01A02,
      // WDC WD20SPZX-22CRAT0/01.01A01, WDC WD20SPZX-22UA7T0/01.01A01
    "WDC WD[12]0SPZX-.*",
    "", "", ""
  },
