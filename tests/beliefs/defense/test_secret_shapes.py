"""Secrets and personal data in the shapes people write them, with the look-alikes that must stay clean.

Every value below was made up for these tests (none comes from a measured corpus): AWS secrets beside their key
id with no label, Azure connection strings, SAS URLs and DevOps tokens, IBANs in lower case or split across
groups and lines, passports named in several languages or read from a machine-readable zone, passwords as
JSON/YAML/ENV values and in sentences, card numbers with dots or next to an expiry and a CVV, street addresses
in several countries' layouts. A value is caught when every non-space character of it lies inside a finding.
"""

# ruff: noqa: E501 (the test texts are kept whole, one a line)

from __future__ import annotations

import pytest

from beliefs.defense.scanner import scan


def _caught(text: str, value: str) -> bool:
    start = text.index(value)
    spans = [(f.start, f.end) for f in scan(text)]
    return all(ch.isspace() or any(s <= i < e for s, e in spans) for i, ch in enumerate(value, start))


POSITIVES = [
    (
        "aws",
        "Keys for the staging bucket: AKIAZ7QW3ER5TY8UI2OP and Xk9mPq2Lr7Vn4Bz8Wc1Ys6Td3Hf0Jg5Ka2Ne7Ru1 (rotate after the demo).",
        "Xk9mPq2Lr7Vn4Bz8Wc1Ys6Td3Hf0Jg5Ka2Ne7Ru1",
    ),
    (
        "aws",
        "AKIAZ7QW3ER5TY8UI2OP,Xk9mPq2Lr7Vn4Bz8Wc1Ys6Td3Hf0Jg5Ka2Ne7Ru1,us-east-1",
        "Xk9mPq2Lr7Vn4Bz8Wc1Ys6Td3Hf0Jg5Ka2Ne7Ru1",
    ),
    (
        "aws",
        '{"Credentials": {"AccessKeyId": "ASIAQ4RT7YU2IO9PLK3J", "SecretAccessKey": "b7Hn2Mq9Lx4Kc8Vz1Rw5Tp3Yd6Fs0Ga/Je2Nu7Qi", "Expiration": "2026-01-01T00:00:00Z"}}',
        "b7Hn2Mq9Lx4Kc8Vz1Rw5Tp3Yd6Fs0Ga/Je2Nu7Qi",
    ),
    (
        "aws",
        "The AWS credentials for the billing export job (ask Priya before rotating): r4Tg8Yh2Uj6Ik0Ol3Pz7Xc1Vb5Nm9Qw+Ea2Sd4Ff",
        "r4Tg8Yh2Uj6Ik0Ol3Pz7Xc1Vb5Nm9Qw+Ea2Sd4Ff",
    ),
    ("aws", "he pasted access key id AKIAX2C4V6B8N1M3Q5W7 into the ticket", "AKIAX2C4V6B8N1M3Q5W7"),
    (
        "aws",
        "aws_access_key_id=AKIAX2C4V6B8N1M3Q5W7\naws_secret_access_key=Pq7Wm2Xn9Lk4Jh8Gf3Ds6Aa1Zz5Xx0Cc2Vv7Bb4N",
        "Pq7Wm2Xn9Lk4Jh8Gf3Ds6Aa1Zz5Xx0Cc2Vv7Bb4N",
    ),
    (
        "aws",
        "Please use secret Pq7Wm2Xn9Lk4Jh8Gf3Ds6Aa1Zz5Xx0Cc2Vv7Bb4N for the key AKIAX2C4V6B8N1M3Q5W7.",
        "Pq7Wm2Xn9Lk4Jh8Gf3Ds6Aa1Zz5Xx0Cc2Vv7Bb4N",
    ),
    (
        "azure",
        "DefaultEndpointsProtocol=https;AccountName=acmelogs01;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6QUJDREVGR0hJSktMTU5PUFFSU1Q0=;EndpointSuffix=core.windows.net",
        "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6QUJDREVGR0hJSktMTU5PUFFSU1Q0=",
    ),
    (
        "azure",
        "Endpoint=sb://orders-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=q8Vn3Lk7Xc2Bz9Mw4Rt6Yp1Hd5Js0Fg8Ua3Ke7Nq2W=",
        "q8Vn3Lk7Xc2Bz9Mw4Rt6Yp1Hd5Js0Fg8Ua3Ke7Nq2W=",
    ),
    (
        "azure",
        "Blob link for the auditors: https://acmelogs01.blob.core.windows.net/exports/q3.csv?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-03-01T00:00:00Z&st=2026-02-01T00:00:00Z&spr=https&sig=k7Vn2Bq9Xc4Lm8Rt1Yp5Hd3Js6Fg0Ua2Ke7Nq9Wz4%3D",
        "sig=k7Vn2Bq9Xc4Lm8Rt1Yp5Hd3Js6Fg0Ua2Ke7Nq9Wz4%3D",
    ),
    (
        "azure",
        "the storage account key for acmelogs01 is EqV8ib8HDy88YtDtXbiufMdI8X2Y4rUmer/BH3M1XS0DRdJuPnBIKpi99lSi0tcL21pffWQJEeNajnez0LHtfR== so keep it out of slack",
        "EqV8ib8HDy88YtDtXbiufMdI8X2Y4rUmer/BH3M1XS0DRdJuPnBIKpi99lSi0tcL21pffWQJEeNajnez0LHtfR==",
    ),
    (
        "azure",
        'AZURE_CLIENT_SECRET="Xy8Q~k2Lm9Xv4Bq7Rt1Yp5Hd3Js6Fg0Ua2Ke7Nq9W"',
        "Xy8Q~k2Lm9Xv4Bq7Rt1Yp5Hd3Js6Fg0Ua2Ke7Nq9W",
    ),
    (
        "azure",
        "AccountEndpoint=https://acme-cosmos.documents.azure.com:443/;AccountKey=C2y6yDjf5R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==;",
        "C2y6yDjf5R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==",
    ),
    (
        "azure",
        "az devops login with PAT 4xq7m2kz5nvlwp3yb6rct7dfhg2jsa5eu4io3kmn7wzq2vbxl6ta",
        "4xq7m2kz5nvlwp3yb6rct7dfhg2jsa5eu4io3kmn7wzq2vbxl6ta",
    ),
    ("iban", "Please wire it to DE89 3704 0044 0532 0130 00 before Friday.", "DE89 3704 0044 0532 0130 00"),
    ("iban", "my iban is gb29nwbk60161331926819 thanks", "gb29nwbk60161331926819"),
    ("iban", "IBAN: FR14 2004 1010 0505 0001 3M02 606", "FR14 2004 1010 0505 0001 3M02 606"),
    ("iban", "Konto: DE89-3704-0044-0532-0130-00", "DE89-3704-0044-0532-0130-00"),
    ("iban", "Refund to NL91ABNA0417164300 (Jan de Vries).", "NL91ABNA0417164300"),
    ("iban", "IBAN GB29 NWBK 6016\n1331 9268 19 (Lloyds)", "GB29 NWBK 6016\n1331 9268 19"),
    ("iban", '{"name": "Ana Costa", "iban": "PT50000201231234567890154"}', "PT50000201231234567890154"),
    ("iban", "es: ES91 2100 0418 4502 0005 1332.", "ES91 2100 0418 4502 0005 1332"),
    ("iban", "CH93  0076  2011  6238  5295  7", "CH93  0076  2011  6238  5295  7"),
    ("passport", "Passport no: 533380006, exp 2031", "533380006"),
    ("passport", "Her passport number for the visa form is K4821937.", "K4821937"),
    ("passport", "Numéro de passeport : 18AV46721", "18AV46721"),
    ("passport", "Número de pasaporte: PAA123456", "PAA123456"),
    ("passport", "Reisepass-Nr. C01X00T47", "C01X00T47"),
    ("passport", '{"passportNumber": "X8823471", "nationality": "CA"}', "X8823471"),
    ("passport", '{"travel_document": {"type": "P", "number": "E39182736"}}', "E39182736"),
    ("passport", "travel document number: 902334551", "902334551"),
    ("passport", "Numero di passaporto YA1234567 rilasciato a Roma", "YA1234567"),
    ("passport", "Passport: GB / 120382991 / expires 2029-04-11", "120382991"),
    (
        "passport",
        "P<GBRSMITH<<JOHN<PETER<<<<<<<<<<<<<<<<<<<<<<<\n1203829911GBR8501019M2904113<<<<<<<<<<<<<<06",
        "120382991",
    ),
    ("passport", "He showed his passport (L898902C3) at the desk.", "L898902C3"),
    ("password", '{"username": "ops", "password": "sunflower"}', "sunflower"),
    ("password", "my password is hunter22!", "hunter22!"),
    ("password", "pwd=Qz!8r#Lm", "Qz!8r#Lm"),
    ("password", "passwd: Gr33n-Tea", "Gr33n-Tea"),
    ("password", "the pass is Tango77#", "Tango77#"),
    ("password", "db:\n  user: app\n  password: s3cr3tPass\n", "s3cr3tPass"),
    ("password", "DB_PASSWORD=Winter2026!", "Winter2026!"),
    ("password", "connect to postgres://app:Zk3!mPq9@db.internal:5432/main", "Zk3!mPq9"),
    ("password", "ssh admin:Rt5%yU8i@10.1.2.3", "Rt5%yU8i"),
    ("password", '{"user":"x","password":"O\'Neil#42"}', "O'Neil#42"),
    ("password", "Password for the wifi: Kitchen-Sink-42", "Kitchen-Sink-42"),
    ("password", "Login: j.doe / Password: Mango!Tree9", "Mango!Tree9"),
    ("password", "Mot de passe : Soleil2025!", "Soleil2025!"),
    ("password", "Passwort: Bergsee#19", "Bergsee#19"),
    ("password", "contraseña: Luna*4421", "Luna*4421"),
    ("password", "I reset it, the new password is now Falcon#2291.", "Falcon#2291"),
    ("password", 'password="correct horse battery staple"', "correct horse battery staple"),
    ("password", "pw: 7Gh!kLp2", "7Gh!kLp2"),
    ("password", "my PIN is 4821", "4821"),
    ("password", "ATM pin 4821", "4821"),
    ("password", "PIN 3662 for the side door", "3662"),
    ("password", "his password was letmein2024", "letmein2024"),
    ("card", "Card 4539.1488.0343.6467 exp 09/27", "4539.1488.0343.6467"),
    ("card", "Visa 4539 1488 0343 6467 09/27 cvv 123", "4539 1488 0343 6467"),
    ("card", "Jane Roe, DOB 1988-02-14, card 5555 4444 3333 2226, 12 High St", "5555 4444 3333 2226"),
    ("card", "amex 3782 822463 10013", "3782 822463 10013"),
    ("card", "card number: 4111-2222-3333-4448.", "4111-2222-3333-4448"),
    ("card", "Visa 4539148803436467 exp 09/27", "4539148803436467"),
    ("card", "paid with 4539148803436467 yesterday", "4539148803436467"),
    ("card", "paid with 4539148803436467, billing zip 94107", "4539148803436467"),
    ("card", "cc 4539  1488  0343  6467", "4539  1488  0343  6467"),
    ("card", "card: 4539 1488\n0343 6467", "4539 1488\n0343 6467"),
    ("card", '{"card": "5105105105105118", "exp": "11/28", "dob": "1990-05-05"}', "5105105105105118"),
    ("card", "VISA-4539148803436467", "4539148803436467"),
    ("card", "MC 2223 0031 2200 3131, phone 555-0134", "2223 0031 2200 3131"),
    ("address", "Send it to 12 rue de la Paix, 75002 Paris, France.", "12 rue de la Paix, 75002 Paris, France"),
    (
        "address",
        "Office: 1600 Pennsylvania Avenue NW, Washington, DC 20500",
        "1600 Pennsylvania Avenue NW, Washington, DC 20500",
    ),
    ("address", "She lives at Unit 4, 12 Smith St, Parramatta NSW 2150.", "Unit 4, 12 Smith St, Parramatta NSW 2150"),
    ("address", "Ship to 350 Bay St, Toronto, ON M5H 2S6", "350 Bay St, Toronto, ON M5H 2S6"),
    ("address", "Keizersgracht 123, 1015 CJ Amsterdam", "Keizersgracht 123, 1015 CJ Amsterdam"),
    ("address", "Drottninggatan 53, 111 21 Stockholm", "Drottninggatan 53, 111 21 Stockholm"),
    ("address", "Hauptstraße 5, 10115 Berlin", "Hauptstraße 5, 10115 Berlin"),
    ("address", "Calle de Alcalá 45, 28014 Madrid", "Calle de Alcalá 45, 28014 Madrid"),
    ("address", "Via Roma 10, 00184 Roma RM", "Via Roma 10, 00184 Roma RM"),
    (
        "address",
        "Av. Paulista, 1578 - Bela Vista, São Paulo - SP, 01310-200",
        "Av. Paulista, 1578 - Bela Vista, São Paulo - SP, 01310-200",
    ),
    ("address", "my address is 42 elm street, springfield", "42 elm street, springfield"),
    ("address", "Apt 4B, 221 Baker Street, London NW1 6XE", "Apt 4B, 221 Baker Street, London NW1 6XE"),
    ("address", '{"street": "77 Massachusetts Ave", "city": "Cambridge", "zip": "02139"}', "77 Massachusetts Ave"),
    ("address", "ul. Marszałkowska 84/92, 00-514 Warszawa", "ul. Marszałkowska 84/92, 00-514 Warszawa"),
    ("address", "1-2-3 Marunouchi, Chiyoda-ku, Tokyo 100-0005", "1-2-3 Marunouchi, Chiyoda-ku, Tokyo 100-0005"),
    ("address", "They moved to 58 Orchard Lane, Bath BA1 2QT last spring", "58 Orchard Lane, Bath BA1 2QT"),
    ("address", "Deliver to 4821 W Cermak Rd Apt 2, Chicago, IL 60623", "4821 W Cermak Rd Apt 2, Chicago, IL 60623"),
    ("address", "10 Downing St, London SW1A 2AA", "10 Downing St, London SW1A 2AA"),
    ("address", "Bahnhofstrasse 21, 8001 Zürich, Switzerland", "Bahnhofstrasse 21, 8001 Zürich, Switzerland"),
    (
        "address",
        "1600 Amphitheatre Parkway, Mountain View, CA 94043, USA",
        "1600 Amphitheatre Parkway, Mountain View, CA 94043, USA",
    ),
    ("address", "home: 9 Queen's Road, Hong Kong", "9 Queen's Road"),
    ("address", "Nørregade 10, 1165 København K", "Nørregade 10, 1165 København K"),
    (
        "azure",
        "DefaultEndpointsProtocol=https;AccountName=acmelogs01;AccountKey=575yx8xm5MslfY5ubiheyEd7P4zDL/ak6J0kGODKdinZnLXicaBAg8WY1jzIRlNQb0prFmbh7+wy5yq1XoY1Ba==;EndpointSuffix=core.windows.net",
        "DefaultEndpointsProtocol=https;AccountName=acmelogs01;AccountKey=575yx8xm5MslfY5ubiheyEd7P4zDL/ak6J0kGODKdinZnLXicaBAg8WY1jzIRlNQb0prFmbh7+wy5yq1XoY1Ba==;EndpointSuffix=core.windows.net",
    ),
    (
        "azure",
        "Here is what the portal showed under access keys, first one: 575yx8xm5MslfY5ubiheyEd7P4zDL/ak6J0kGODKdinZnLXicaBAg8WY1jzIRlNQb0prFmbh7+wy5yq1XoY1Ba==",
        "575yx8xm5MslfY5ubiheyEd7P4zDL/ak6J0kGODKdinZnLXicaBAg8WY1jzIRlNQb0prFmbh7+wy5yq1XoY1Ba==",
    ),
    (
        "azure",
        '{"keys": [{"primaryKey": "IMcAxYmfsB4HbQLXjjlAFbVV6q9rXxtNDFyuzX9k1gn=", "secondaryKey": "=ng1k9XzuyFDNtxXr9q6VVbFAljjXLQbH4BsfmYxAcMI"}]}',
        "IMcAxYmfsB4HbQLXjjlAFbVV6q9rXxtNDFyuzX9k1gn=",
    ),
    (
        "azure",
        "new token for the pipeline gcG9qpVTzqA05MFsHl7UeioEJP2NNern66nVberACpdclsxHKifxi5CvQUSHL8iLc7bE6wSt9cbMAZDOOeEe",
        "gcG9qpVTzqA05MFsHl7UeioEJP2NNern66nVberACpdclsxHKifxi5CvQUSHL8iLc7bE6wSt9cbMAZDOOeEe",
    ),
    (
        "azure",
        "curl https://acme-fn.azurewebsites.net/api/export?code=NOrjj5VfqRTk8j1d-bWWbjkloG1QX647kdNl9cDo-_GbVMszvR4-EP==",
        "NOrjj5VfqRTk8j1d-bWWbjkloG1QX647kdNl9cDo-_GbVMszvR4-EP==",
    ),
    ("iban", "wire to ES96 2100 0418 4502 0005 1339", "ES96 2100 0418 4502 0005 1339"),
    ("password", '{"login": "kiosk", "pin": "804271"}', "804271"),
    ("password", "The password is: Quartz#88", "Quartz#88"),
    ("address", "Baker Street, London NW1 6XE", "Baker Street, London NW1 6XE"),
    ("address", "12 bis rue Victor Hugo, 69002 Lyon", "12 bis rue Victor Hugo, 69002 Lyon"),
    ("address", "4 Merrion Square, Dublin 2, D02 X285", "4 Merrion Square, Dublin 2, D02 X285"),
    ("address", "送付先：〒100-0005 東京都千代田区丸の内1-2-3", "〒100-0005 東京都千代田区丸の内1-2-3"),
    ("address", "서울특별시 중구 세종대로 110", "서울특별시 중구 세종대로 110"),
    ("password", "use Hunter22! as the password for now", "Hunter22!"),
    ("password", "Blue#Harbor2024 is her new password.", "Blue#Harbor2024"),
    ("password", "mysql -uroot -pS3cretPw", "S3cretPw"),
    ("password", "sshpass -p 'Qw3rty!9' ssh bob@h", "Qw3rty!9"),
    ("password", '<input type="password" value="Hunter22x">', "Hunter22x"),
    ("address", "Unit 5/23 Smith St, Parramatta NSW 2150", "Unit 5/23 Smith St, Parramatta NSW 2150"),
    ("address", "No. 12, Jalan Sultan Ismail, 50250 Kuala Lumpur", "No. 12, Jalan Sultan Ismail, 50250 Kuala Lumpur"),
    ("address", "Адрес: ул. Тверская, д. 7, кв. 12, Москва, 125009", "ул. Тверская, д. 7, кв. 12, Москва, 125009"),
    ("address", "Rua Augusta 100, 1100-053 Lisboa", "Rua Augusta 100, 1100-053 Lisboa"),
    ("address", "She lives at Andrássy út 60, 1062 Budapest.", "Andrássy út 60, 1062 Budapest"),
    ("address", "Václavské náměstí 1, 110 00 Praha", "Václavské náměstí 1, 110 00 Praha"),
    ("address", "İstiklal Caddesi No:45, Beyoğlu, İstanbul", "İstiklal Caddesi No:45, Beyoğlu, İstanbul"),
    ("address", "Tverskaya ulitsa 7, Moscow 125009", "Tverskaya ulitsa 7, Moscow 125009"),
    ("address", "Ship to: 1234 County Road 56, Smalltown, MN 55555", "1234 County Road 56, Smalltown, MN 55555"),
    (
        "address",
        "Block 123 Ang Mo Kio Ave 3, #05-123, Singapore 560123",
        "Block 123 Ang Mo Kio Ave 3, #05-123, Singapore 560123",
    ),
    ("address", "RR 2 Box 152, Hollister, MO 65672", "RR 2 Box 152, Hollister, MO 65672"),
    ("address", "Oficina: Calle 93 #11-26, Bogotá", "Calle 93 #11-26, Bogotá"),
    ("date_of_birth", "né le 14/03/1985 à Lyon", "14/03/1985"),
    ("date_of_birth", "D.O.B 14-Mar-1985", "14-Mar-1985"),
    ("date_of_birth", "birthdate: 19850314", "19850314"),
    ("date_of_birth", "Date of Birth (MM/DD/YYYY): 03/14/1985", "03/14/1985"),
    ("date_of_birth", "was born on the 14th of March, 1985", "14th of March, 1985"),
    ("date_of_birth", "DOB: 5th of May '88", "5th of May '88"),
    ("date_of_birth", "born on May 5th, \u201988 in Leeds", "May 5th, \u201988"),
    ("date_of_birth", "Geboren am 14. März 1985", "14. März 1985"),
    ("date_of_birth", "data de nascimento: 14/03/1985", "14/03/1985"),
    ("date_of_birth", "дата рождения: 14.03.1985", "14.03.1985"),
    ("date_of_birth", "生年月日: 1985年3月14日", "1985年3月14日"),
    ("date_of_birth", "BIRTHDATE|1985-03-14", "1985-03-14"),
    ("date_of_birth", "my date of birth is 12/05/1988", "12/05/1988"),
    ("date_of_birth", "her DOB was 1988-05-12", "1988-05-12"),
    ("ssn", "my SSN is 512483321", "512483321"),
    ("ssn", "her social security number was 512483321", "512483321"),
    ("date_of_birth", "née le 3 mars 1985", "3 mars 1985"),
    ("passport", "PP# 533380006", "533380006"),
    ("passport", "護照號碼 : 300123456", "300123456"),
    ("address", "Please send it to 311 Coolabah Access, Fremantle WA 6160.", "311 Coolabah Access, Fremantle WA 6160"),
    ("address", "Flat 2\n 69 Ironbark Circuit\nGlenelg, SA, 5045", "Flat 2\n 69 Ironbark Circuit\nGlenelg, SA, 5045"),
    ("address", "Unit 19/563 Wattle Glade, Sandy Bay TAS 7005", "Unit 19/563 Wattle Glade, Sandy Bay TAS 7005"),
    ("address", "12 Banksia Cul-de-sac, Toowong QLD 4066", "12 Banksia Cul-de-sac, Toowong QLD 4066"),
    ("phone", "Ph# 4155550132", "4155550132"),
    ("phone", "phone_number=4155550132", "4155550132"),
    ("phone", "cell:415/555/0132", "415/555/0132"),
    ("phone", "Telefon: 030/901820", "030/901820"),
    ("phone", "phone: 415–555–0132", "415–555–0132"),
    ("phone", "Tél : 01.42.68.53.00", "01.42.68.53.00"),
    ("phone", "Ihre Handynummer ist 0151 12345678.", "0151 12345678"),
    ("phone", "Call 0151–12345678 tonight", "0151–12345678"),
    # the nouns a phone number goes by, a phone word split by a space, a person's own number, a Brazilian mobile
    ("phone", "her home number 415-555-0132", "415-555-0132"),
    ("phone", "my number: (415) 555-0132", "(415) 555-0132"),
    ("phone", "customer callb ack number 2443 2386 (left voicemail)", "2443 2386"),
    ("phone", "Ligue para 91234-5678 amanhã.", "91234-5678"),
    ("mac", "MAC 00:11:22:33:44:55 on eth0", "00:11:22:33:44:55"),
    ("mac", "device 10-20-30-40-50-61 joined the network", "10-20-30-40-50-61"),
    ("mac", "the printer at 3c:22:fb:01:02:03 is offline", "3c:22:fb:01:02:03"),
]

LOOKALIKES = [
    "Order 4539-1488-0343-6468 shipped (tracking 1Z999AA10123456784).",
    "Run id 550e8400-e29b-41d4-a716-446655440000 finished in 12 minutes.",
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 fixed the bug",
    "ISBN 978-3-16-148410-0, version 2.14.3, build 10.0.19045.3693",
    "upgrade to release 1.2.3.4 before Monday",
    "FedEx tracking 7946 1234 5678 arrives Tuesday",
    "USPS tracking 9400 1000 0000 0000 0000 00",
    "Invoice INV-2024-00917, PO 4500123456, total 1,234.56 EUR",
    "The passport office opens at 9; bring two photos and the form DS-82.",
    "We walked 5 blocks down the street to the cafe.",
    "password: ${DB_PASSWORD}",
    "password: op://Private/postgres/password",
    "password: !vault |",
    "DB_PASSWORD=$(cat /run/secrets/db_password)",
    "password: arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-AbCdEf",
    '"password": "{{ .Values.db.password }}"',
    "password: ENC[AES256_GCM,data:Zm9vYmFy,iv:abc,tag:def,type:str]",
    "Please reset your password at the link below.",
    "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg== is the integrity hash",
    "Your order number is 4111 1111 1111 1112 and will ship soon.",
    "The sample IBAN format is DE00 0000 0000 0000 0000 00.",
    "Check the README section 3 Getting Started Guide for details",
    "git sha 3f786850e387550fdab836ed7e6dc881de23001b and docker image sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
    "passport renewal takes 6 weeks; the fee is 75 GBP.",
    "document number 4500017721 was posted to the ledger",
    "The meeting is in room 4B, 221 floor plan attached.",
    "Set max_connections=200 and pool timeout 30s",
    "Call me at 3pm about the 2 Main projects",
    "ticket ABC-12345 and ABC-12346 closed",
    "The AWS region us-east-1 hosts 3 buckets; bucket name logs-2024-archive-prod-eu.",
    "The Main Street Festival 2024 starts at noon.",
    "We met on Baker Street yesterday.",
    "東京都は日本の首都です。",
    '"pin": "123456"',
    "integrity: sha512-575yx8xm5MslfY5ubiheyEd7P4zDL/ak6J0kGODKdinZnLXicaBAg8WY1jzIRlNQb0prFmbh7+wy5yq1XoY1Ba==",
    '"nextPageToken": "CAoQAAx8Zy2LmQ9rT3vW"',
    '"idempotencyKey": "ord_8f3K2mQ9xLp4Zr7W"',
    "The password is what you set yesterday",
    "Section 4.2 is the password policy",
    "Visa 4539 1488 0343 6468 09/27",
    "UPS 1Z 999 AA1 01 2345 678 4",
    "IMEI 490154203237518",
    "ISBN 0-306-40615-2 and 978-0-306-40615-7",
    "ORCID 0000-0002-1825-0097",
    "Invoice 0151 12345678 is due.",
    "ticket 2024/555/0132 reopened",
    "On 2024/11/05 10:30 the ratio was 3/4/5.",
    "Order 415-555-0132-A shipped",
    "Daniela 25, Marco 30 and Pia 12 joined.",
    "NATO 12.04.2024 summit; birth rate 1.2 in 2024; dob=20241399; Geburtsdatum unbekannt",
    "see pp. 123456-123460 of the report",
    "SSN 123-45-6789 is the example every form uses",
    "The product line was born 2099-01-01 in our roadmap fiction; DOB field: 1899-01-01 (sentinel)",
    "Level 4 Service Centre, 2024 plan; we shipped 3 Key Points, CA teams agreed",
    "Step 2 Cross Link, IT team; the 3 Little Pigs, UK edition",
    "Mapbox public token pk.eyJ1IjoibWFwYm94IiwiYSI6ImNpejY4M29iazA2Z2gycXA4N2pmbDZmangifQ.-g_vE53SD2WrJ6tFX7QHmA",
    "reCAPTCHA site key 6LcXyZ0aAAAAAJ3kL9mN2oP5qR8sT1uV4wX7yZ0a",
    "Algolia search-only key 6be0576ff61c053d5f9a3225e2a90f76",
    "DOI 10.1000/182 and fraction 3/4/5/6/7/8/9",
    "Chapter 4 covers Park 2 and County Road 5.",
    "Calle 13 is a band; Box 12 of 40 shipped; RR 2 qualifies",
    "Ticket #05-123 closed in version 2024-555",
    "SHA-1 fingerprint 5E:FF:56:A2:AF:15:88:25:35:12:F6:04:19:40:8B:9D:6A:D5:B5:34",
    "Lap splits were 10:20:30:40:50:60 for the relay",
    "The port range 49152–65535 is ephemeral",
    "Wire via routing number 021000021 as printed on the bank's site",
    "my bank's routing number is 021000021",
    "the order number was 4539 1488 0343 6467",
    "Your tracking number is 7749 3356 8821",
    "Dial-in code 845 221 9093# for the weekly call",
    "Phone placeholder (555) 555-5555 in the mockup",
    "Hex dump: 48 65 6c 6c 6f 20 57 6f 72 6c 64",
    "PGP fingerprint 7E4A 1B2C 3D4E 5F60 7182  93A4 B5C6 D7E8 F901 2345",
    "Meeting ID 892 4471 0356, passcode shared in the invite",
    "Tracking number 92612999897543581074953163 on the parcel",
    "Case No. 2:21-cv-01234 in the district court",
    "Transaction hash 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060 confirmed in block 46147.",
    "Patch 14.2.0.1 rolled out to 3,500 devices",
    "Appointment reference 77-4410-2291 confirmed",
    "Refund of $1,249.00 issued on 2024-11-02 (txn 7782341190)",
    "Gate code changed from 1234 to 5678 last week per building manager",
    "RMA 55-00871 approved for the broken headset",
    # identifiers after their own label, sections, decimals, dated codes, dotted paths, byte strings, locations
    "FedEx tracking 7749 3356 8821 arrives Tuesday",
    "arXiv:2106.09685 describes LoRA",
    "DUNS 15-048-3782 for the supplier",
    "lot 2023-11-0456 expires next spring",
    "SNMP OID 1.3.6.1.2.1.1.5.0 returns the hostname",
    "section 2.3.1.4 of the RFC covers retries",
    "Let's Encrypt R3 serial 03:a1:5f:2c:9e:7b:11:40",
    "reset your password at https://example.com/reset",
    "pwd: /home/deploy/app",
    "the JWT header eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9 says HS256",
    "catalog number 0724-3558-7720 in the parts list",
    "noreply@github.com sends the notifications",
    "the cursor is eyJvZmZzZXQiOjEwMCwibGltaXQiOjUwfQ for page 3",
    "password_file: /run/secrets/db_password",
    # published sandbox cards, a year-led code, thousands grouped by spaces, a docket number
    "Test card 4242 4242 4242 4242 with any CVC",
    "Use 5555 5555 5555 4444 in the sandbox",
    "Student number 2021-345-678",
    "revenue of 12 345 678 901 EUR in 2023",
    "Docket No. 2023-0456-789",
    "NDC 0777-3105-02",
    # a card's digits unbroken with no word of payment near them, glued to an identifier, or naming a file
    "the sum 4539148803436467 overflowed int32",
    "session 4539148803436467 expired",
    "txn_4539148803436467 settled",
    "file 4539148803436467.pdf attached",
    # a form's counting stand-ins and numbers after their own label
    "Enter your number like (123) 456-7890",
    "sample: 012-345-6789",
    "receipt 415-555-0132 printed",
    "item 415.555.0132 restocked",
    "the book 0-306-40615-2 is out of print",
    "measurements: 415 555 132 mm",
    "example phone (555) 123-4567",
    "call 1-555-123-4567 (not a real number)",
    "ZIP code 94105-1234",
    "Bestellnummer 4155550132",
    "Rechnungsnummer 2024-00917",
    # a number that another noun's "code" or "number" names, and a ZIP+4 after a state
    "Join with conference code 615 204 8890#.",
    "Load number 44 8813 7720 on the bill of lading.",
    "account number 4155550132",
    "UK Limited Company, (Company number: 03877731)",
    "Mail it to San Francisco, CA 94105-1234 please.",
    "ZIP+4 code 94105-1234 on the envelope.",
    # an operand, a unit, a last group of one digit, a year leading spaced groups, a colour, a plural label
    "The math worked out: 555 - 123 - 4567 = -4135.",
    "Frequencies 415 555 0132 Hz from the sensor.",
    "The lottery draw was 4 15 55 50 13 2.",
    "cohort 2023 1587 42",
    "RGB 255 128 064 is the brand orange.",
    "Part numbers 415-555-0132 are on the crate.",
]


@pytest.mark.parametrize(("family", "text", "value"), POSITIVES, ids=[f"{p[0]}-{i}" for i, p in enumerate(POSITIVES)])
def test_value_is_caught_whole(family, text, value):
    assert _caught(text, value), [(f.kind, text[f.start : f.end]) for f in scan(text)]


@pytest.mark.parametrize("text", LOOKALIKES)
def test_lookalike_stays_clean(text):
    assert scan(text) == []


def test_card_is_picked_out_of_a_longer_run_by_layout_and_luhn():
    text = "Visa 4539 1488 0343 6467 09/27 cvv 123"
    assert [(f.kind, text[f.start : f.end]) for f in scan(text)] == [
        ("credit_card", "4539 1488 0343 6467"),
        ("card_security_code", "123"),
    ]
    # one digit off: Luhn fails, and no shorter stretch of whole groups is taken instead
    assert scan("Visa 4539 1488 0343 6468 09/27") == []


def test_iban_takes_the_longest_stretch_that_passes_mod_97():
    text = "please pay DE89 3704 0044 0532 0130 00 is the account"
    assert [text[f.start : f.end] for f in scan(text)] == ["DE89 3704 0044 0532 0130 00"]
    assert scan("please pay DE89 3704 0044 0532 0130 01") == []


def test_machine_readable_zone_needs_its_check_digits():
    good = "1203829911GBR8501019M2904113<<<<<<<<<<<<<<06"
    assert [f.kind for f in scan(good)] == ["passport_number"]
    assert scan(good.replace("1GBR", "2GBR")) == []


def test_document_number_is_a_passport_only_beside_words_of_identity():
    assert [f.kind for f in scan("Nationality: CA, document number: X8823471, date of expiry 2031-02-02")] == [
        "passport_number"
    ]
    assert scan("document number 4500017721 was posted to the ledger") == []


def test_lower_case_address_needs_words_that_introduce_it():
    assert [f.kind for f in scan("my address is 42 elm street, springfield")] == ["street_address"]
    assert scan("we walked 42 long blocks up the street") == []


def test_word_in_its_own_script_is_not_folded_but_a_mixed_one_is():
    assert [f.kind for f in scan("p\u0430ssword: Hunter2Go!x")] == ["password_assignment"]
    assert scan("Привет, как дела? Всё хорошо.") == []


def test_long_token_with_look_alikes_near_its_start_is_redacted_whole():
    # The folded text is re-read only around the changed characters: a window that stopped inside this token
    # left its last 90 characters stored raw.
    token = "IQoJb3JpZ2luX2VjEC9AZHkSj9JGf78cjrO1a1Y\uff34\uff4e\uff35\uff4bbnsBDklXqEI0ith7fPw8pnRg13wfoQBanVN5cp" + (
        "/8Jv3UIk/dX1A+cgOJtxjpN8kHybQHIJmlk3g8HXEmDRpWjYSySk5FaqJUq2/j2oYPLYvRbArjscqTn+vX9p4QycTM/RDiBj/Etll2MN"
        "BTmikzGoGSritMdiJm8Q6mfef9UveMJk0JYE3uujqHnWE2ygKqXj4pSz0Lw"
    )
    text = f"aws_session_token = {token}\nregion = eu-west-1"
    assert [(f.kind, text[f.start : f.end]) for f in scan(text)] == [("aws_session_token", token)]


def test_key_block_with_a_folded_header_is_redacted_to_its_end():
    body = "\n".join(["MIGjMF8GCSqGSIb3DQEFDTBSMDEGCSqGSIb3DQEFDDAkBBCJBTsQleXu0CAyrNan"] * 6)
    block = f"-----BE\uff27\uff29\uff2e PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----"
    text = f"$ cat ~/.ssh/id_key\n{block}\n$ "
    assert [(f.kind, text[f.start : f.end]) for f in scan(text)] == [("private_key", block)]
